// Classifying what failed talking to a remote upstream (the connection,
// its credentials, its TLS certificate, a malformed answer) and the error
// a person can act on for each.

package upstream

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"

	"github.com/mark3labs/mcp-go/client/transport"
	"golang.org/x/oauth2"
)

// httpError says what failed talking to a remote upstream, without its
// credentials.
func (c *conn) httpError(err error) error {
	return errors.New(c.s.redact(c.explainHTTP(err).Error()))
}

func (c *conn) explainHTTP(err error) error {
	msg := err.Error()
	var rr *redirectRefused
	if errors.As(err, &rr) {
		return rr
	}
	if o := c.s.spec.Auth.OAuth; o != nil {
		var re *oauth2.RetrieveError
		if errors.As(err, &re) {
			code := ""
			if re.Response != nil {
				code = re.Response.Status + " "
			}
			what := re.ErrorCode
			if re.ErrorDescription != "" {
				what += ": " + re.ErrorDescription
			}
			if what == "" {
				what = "no token"
			}
			return fmt.Errorf("the OAuth token endpoint %s refused the client credentials of client_id %q (%s%s); check auth.oauth", o.TokenURL, o.ClientID, code, what)
		}
	}
	if authError(err) {
		return fmt.Errorf("%s refused the gateway's credentials (401 %s); check auth", c.s.spec.URL, msg)
	}
	if certError(err) {
		hint := "set tls.ca_file to a PEM file of the CA that signed it"
		if ca := c.s.spec.TLS.CAFile; ca != "" {
			hint = fmt.Sprintf("tls.ca_file (%s) does not hold the CA that signed it", ca)
		}
		return fmt.Errorf("%s: its TLS certificate is not trusted (%s); %s", c.s.spec.URL, msg, hint)
	}
	if malformed(err) {
		return fmt.Errorf("%s answered with malformed JSON (%s)", c.s.spec.URL, msg)
	}
	if oe := dialError(err); oe != nil {
		// The connection itself failed: say so, without the client's
		// layers of "transport error: failed to send request: …".
		return fmt.Errorf("%s: cannot connect (%v); is the server running and listening there?", c.s.spec.URL, oe)
	}
	return fmt.Errorf("%s: %s", c.s.spec.URL, msg)
}

// certError reports whether err is the server's TLS certificate failing
// verification.
func certError(err error) bool {
	var cve *tls.CertificateVerificationError
	var uae x509.UnknownAuthorityError
	var hne x509.HostnameError
	var cie x509.CertificateInvalidError
	return errors.As(err, &cve) || errors.As(err, &uae) || errors.As(err, &hne) || errors.As(err, &cie)
}

// malformed reports whether err is a response that is not JSON (or not
// the JSON-RPC shape), as opposed to a connection that failed.
func malformed(err error) bool {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	return errors.As(err, &se) || errors.As(err, &te) ||
		(errors.Is(err, io.ErrUnexpectedEOF) && strings.Contains(err.Error(), "decode response"))
}

// dialError is the failed dial (connection refused, no route, a name
// that does not resolve) under err, or nil.
func dialError(err error) *net.OpError {
	var oe *net.OpError
	if errors.As(err, &oe) && oe.Op == "dial" {
		return oe
	}
	return nil
}

// transportError reports whether err is the connection failing rather
// than the server answering with an error.
func transportError(err error) bool {
	var te *transport.Error
	return errors.As(err, &te)
}

func authError(err error) bool {
	var are *transport.AuthorizationRequiredError
	var oae *transport.OAuthAuthorizationRequiredError
	return errors.Is(err, transport.ErrUnauthorized) || errors.As(err, &are) || errors.As(err, &oae)
}
