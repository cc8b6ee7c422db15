package harness

import (
	"encoding/pem"
	"net/http/httptest"
	"path/filepath"
	"testing"
)

// CertFile writes the certificate of srv (an httptest TLS server) as
// PEM to ca.pem in a temporary folder of t's and returns its path: the
// file a gateway trusts through SSL_CERT_FILE, or an upstream's
// tls.ca_file.
func CertFile(t testing.TB, srv *httptest.Server) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "ca.pem")
	WriteFile(t, path, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}))
	return path
}
