package upstreamauth

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	"golang.org/x/oauth2"

	"github.com/wasmgate/wasmgate/config"
)

// ConnectHandler serves the pages where users connect their own accounts
// at upstreams (user_oauth), under /oauth/ of the gateway's public
// listener:
//
//	GET  /oauth/connect/{id}       the page a NotConnectedError links to: "Connect <upstream> for <principal>"
//	POST /oauth/connect/{id}       its button: starts authorization code with PKCE at the upstream's authorization server
//	GET  /oauth/callback           where the authorization server sends the browser back; stores the grant
//	GET  /oauth/client-metadata/{upstream}.json   client ID metadata documents (client_metadata: true)
//
// A connect link is bound to (upstream, principal) when the gateway makes
// it; the sign-in it starts is bound to the browser that pressed the
// button (a cookie whose hash the state's record keeps) and to the PKCE
// verifier, and its state is taken at most once on any replica. No page
// shows a token, a code, a verifier or a secret.
type ConnectHandler struct {
	sources   map[string]*UserOAuth
	store     GrantStore
	publicURL string
	origin    string // scheme://host of publicURL, as browsers send it in Origin
	secure    bool   // cookies are Secure (public_url is https)
	log       *slog.Logger
	mux       *http.ServeMux
}

// NewConnectHandler serves the user_oauth sources, by upstream name. They
// share one store (the gateway's vault) and one public URL; log gets who
// connected what (never a token), slog.Default() when nil.
func NewConnectHandler(sources map[string]*UserOAuth, log *slog.Logger) (*ConnectHandler, error) {
	if log == nil {
		log = slog.Default()
	}
	h := &ConnectHandler{sources: sources, log: log, mux: http.NewServeMux()}
	for name, s := range sources {
		if name != s.opts.Upstream {
			return nil, fmt.Errorf("oauth connect: source %q is named %q", s.opts.Upstream, name)
		}
		if h.store == nil {
			h.store, h.publicURL = s.opts.Store, s.opts.PublicURL
			continue
		}
		if s.opts.PublicURL != h.publicURL {
			return nil, fmt.Errorf("oauth connect: upstreams %q and others have different public URLs", name)
		}
	}
	if h.publicURL != "" {
		u, err := url.Parse(h.publicURL)
		if err != nil {
			return nil, fmt.Errorf("oauth connect: public URL: %w", err)
		}
		h.origin = strings.ToLower(u.Scheme + "://" + u.Host)
		h.secure = u.Scheme == "https"
	}
	h.mux.HandleFunc("GET /oauth/connect/{id}", h.connectPage)
	h.mux.HandleFunc("POST /oauth/connect/{id}", h.connectStart)
	h.mux.HandleFunc("GET /oauth/callback", h.callback)
	h.mux.HandleFunc("GET /oauth/client-metadata/{file}", h.clientMetadata)
	return h, nil
}

// ServeHTTP serves the pages; every answer carries the security headers.
func (h *ConnectHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	hd := w.Header()
	hd.Set("Content-Security-Policy", "default-src 'none'; frame-ancestors 'none'")
	hd.Set("Referrer-Policy", "no-referrer")
	hd.Set("Cache-Control", "no-store")
	hd.Set("X-Content-Type-Options", "nosniff")
	if h.store == nil {
		h.page(w, http.StatusNotFound, page{Title: "Not found", Message: "No upstream here connects user accounts."})
		return
	}
	h.mux.ServeHTTP(w, r)
}

const (
	csrfCookie    = "wasmgate_csrf"
	browserCookie = "wasmgate_oauth_" // + a hash of the state
)

// stateRecord is what a started sign-in's state stands for.
type stateRecord struct {
	Upstream  string `json:"upstream"`
	Principal string `json:"principal"`
	Verifier  string `json:"verifier"`
	Browser   string `json:"browser"` // hex SHA-256 of the browser cookie's nonce
}

// connectPage shows what the link connects, with the button that starts
// it. Looking does not spend the link (link previews fetch it too).
func (h *ConnectHandler) connectPage(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	rec, ok, err := h.peekConnect(r.Context(), id)
	if err != nil {
		h.fail(w, r, "read connect link", err)
		return
	}
	if !ok {
		h.page(w, http.StatusNotFound, expiredLink)
		return
	}
	csrf := ""
	if c, err := r.Cookie(csrfCookie); err == nil && len(c.Value) == len(randomID()) {
		csrf = c.Value
	} else {
		csrf = randomID()
		http.SetCookie(w, &http.Cookie{Name: csrfCookie, Value: csrf, Path: "/oauth/connect/", MaxAge: int(connectTTL / time.Second),
			HttpOnly: true, Secure: h.secure, SameSite: http.SameSiteStrictMode})
	}
	h.page(w, http.StatusOK, page{
		Title:   "Connect " + rec.Upstream,
		Message: fmt.Sprintf("Connect %s for %s.", rec.Upstream, rec.Principal),
		Detail:  "You will sign in at " + rec.Upstream + "'s authorization server and come back here. Continue only if you asked for this link and " + rec.Principal + " is you.",
		Form:    &form{Action: "/oauth/connect/" + id, CSRF: csrf, Button: "Connect " + rec.Upstream},
	})
}

// peekConnect reads a connect link's record without spending it: the
// store only takes once, so it is taken and put back for the rest of its
// time.
func (h *ConnectHandler) peekConnect(ctx context.Context, id string) (connectRecord, bool, error) {
	rec, ok, err := h.takeConnect(ctx, id)
	if err != nil || !ok {
		return rec, ok, err
	}
	left := time.Until(rec.Expires)
	b, err := json.Marshal(rec)
	if err != nil {
		return rec, false, err
	}
	if err := h.store.PutOnce(ctx, connectPrefix+id, b, left); err != nil {
		return rec, false, err
	}
	return rec, true, nil
}

func (h *ConnectHandler) takeConnect(ctx context.Context, id string) (connectRecord, bool, error) {
	var rec connectRecord
	if id == "" || len(id) > 128 {
		return rec, false, nil
	}
	b, ok, err := h.store.TakeOnce(ctx, connectPrefix+id)
	if err != nil || !ok {
		return rec, false, err
	}
	if err := json.Unmarshal(b, &rec); err != nil {
		return rec, false, fmt.Errorf("decode connect link: %w", err)
	}
	if !time.Now().Before(rec.Expires) {
		return rec, false, nil
	}
	return rec, true, nil
}

// connectStart spends the link and sends the browser to the upstream's
// authorization server.
func (h *ConnectHandler) connectStart(w http.ResponseWriter, r *http.Request) {
	if o := r.Header.Get("Origin"); o != "" && o != "null" && !strings.EqualFold(o, h.origin) {
		h.page(w, http.StatusForbidden, page{Title: "Refused", Message: "This form was sent from another site."})
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, 4096)
	c, err := r.Cookie(csrfCookie)
	if err != nil || r.ParseForm() != nil || subtle.ConstantTimeCompare([]byte(c.Value), []byte(r.PostFormValue("csrf"))) != 1 {
		h.page(w, http.StatusForbidden, page{Title: "Refused", Message: "This form was not sent from this gateway's connect page. Open the link again."})
		return
	}
	rec, ok, err := h.takeConnect(r.Context(), r.PathValue("id"))
	if err != nil {
		h.fail(w, r, "take connect link", err)
		return
	}
	if !ok {
		h.page(w, http.StatusNotFound, expiredLink)
		return
	}
	src := h.sources[rec.Upstream]
	if src == nil {
		h.page(w, http.StatusNotFound, page{Title: "Not found", Message: fmt.Sprintf("The gateway no longer connects user accounts to %s.", rec.Upstream)})
		return
	}
	state, nonce, verifier := randomID(), randomID(), oauth2.GenerateVerifier()
	sr, err := json.Marshal(stateRecord{Upstream: rec.Upstream, Principal: rec.Principal, Verifier: verifier, Browser: hashHex(nonce)})
	if err != nil {
		h.fail(w, r, "start sign-in", err)
		return
	}
	if err := h.store.PutOnce(r.Context(), statePrefix+state, sr, connectTTL); err != nil {
		h.fail(w, r, "store sign-in state", err)
		return
	}
	http.SetCookie(w, &http.Cookie{Name: browserCookie + hashHex(state)[:16], Value: nonce, Path: "/oauth/callback", MaxAge: int(connectTTL / time.Second),
		HttpOnly: true, Secure: h.secure, SameSite: http.SameSiteLaxMode})
	http.Redirect(w, r, src.conf.AuthCodeURL(state, oauth2.S256ChallengeOption(verifier)), http.StatusSeeOther)
}

// callback finishes a sign-in: the state is taken once, the browser must
// be the one that started it, and the code is exchanged with its
// verifier.
func (h *ConnectHandler) callback(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	state := q.Get("state")
	if state == "" || len(state) > 128 {
		h.page(w, http.StatusBadRequest, unknownState)
		return
	}
	b, ok, err := h.store.TakeOnce(r.Context(), statePrefix+state)
	if err != nil {
		h.fail(w, r, "take sign-in state", err)
		return
	}
	if !ok {
		h.page(w, http.StatusBadRequest, unknownState)
		return
	}
	var rec stateRecord
	if err := json.Unmarshal(b, &rec); err != nil {
		h.fail(w, r, "decode sign-in state", err)
		return
	}
	name := browserCookie + hashHex(state)[:16]
	http.SetCookie(w, &http.Cookie{Name: name, Value: "", Path: "/oauth/callback", MaxAge: -1, HttpOnly: true, Secure: h.secure, SameSite: http.SameSiteLaxMode})
	c, err := r.Cookie(name)
	if err != nil || subtle.ConstantTimeCompare([]byte(hashHex(c.Value)), []byte(rec.Browser)) != 1 {
		h.log.Warn("oauth callback from another browser", "upstream", rec.Upstream, "principal", rec.Principal)
		h.page(w, http.StatusBadRequest, page{Title: "Not connected",
			Message: "This sign-in was started in another browser. Open the connect link again in this browser."})
		return
	}
	src := h.sources[rec.Upstream]
	if src == nil {
		h.page(w, http.StatusNotFound, page{Title: "Not found", Message: fmt.Sprintf("The gateway no longer connects user accounts to %s.", rec.Upstream)})
		return
	}
	if e := q.Get("error"); e != "" {
		h.log.Info("oauth authorization refused", "upstream", rec.Upstream, "principal", rec.Principal, "error", limit(e))
		h.page(w, http.StatusBadRequest, page{Title: "Not connected",
			Message: fmt.Sprintf("%s's authorization server answered %s: %s was not connected for %s.", rec.Upstream, limit(e), rec.Upstream, rec.Principal),
			Detail:  limit(q.Get("error_description"))})
		return
	}
	code := q.Get("code")
	if code == "" {
		h.page(w, http.StatusBadRequest, page{Title: "Not connected", Message: "The authorization server sent no code."})
		return
	}
	ctx, cancel := context.WithTimeout(src.clientContext(r.Context()), src.opts.Timeout)
	defer cancel()
	tok, err := src.conf.Exchange(ctx, code, oauth2.VerifierOption(rec.Verifier))
	if err != nil {
		reason := strings.ReplaceAll(src.scrub(asReason(err), Grant{}), code, "[code]")
		h.log.Warn("oauth code exchange failed", "upstream", rec.Upstream, "principal", rec.Principal, "reason", reason)
		h.page(w, http.StatusBadGateway, page{Title: "Not connected",
			Message: fmt.Sprintf("%s's authorization server refused the sign-in: %s", rec.Upstream, reason)})
		return
	}
	if tok.AccessToken == "" {
		h.page(w, http.StatusBadGateway, page{Title: "Not connected", Message: fmt.Sprintf("%s's authorization server sent no access token.", rec.Upstream)})
		return
	}
	now := src.opts.Now()
	g := Grant{
		Upstream: rec.Upstream, Principal: rec.Principal,
		AccessToken: config.NewSecret(tok.AccessToken), RefreshToken: config.NewSecret(tok.RefreshToken),
		TokenType: tok.Type(), Expiry: tok.Expiry, Scopes: grantedScopes(tok),
		Subject:     src.subjectOf(r.Context(), tok),
		ConnectedAt: now, RefreshedAt: now,
	}
	if g.Scopes == nil {
		g.Scopes = src.opts.Scopes
	}
	if err := h.store.Put(r.Context(), g); err != nil {
		h.fail(w, r, "store grant", err)
		return
	}
	h.log.Info("user_oauth connected", "upstream", g.Upstream, "principal", g.Principal, "subject", g.Subject)
	h.page(w, http.StatusOK, page{Title: "Connected " + rec.Upstream,
		Message: fmt.Sprintf("Connected %s for %s. Go back to your client and retry.", rec.Upstream, rec.Principal)})
}

// clientMetadata serves an upstream's client ID metadata document.
func (h *ConnectHandler) clientMetadata(w http.ResponseWriter, r *http.Request) {
	name, _ := strings.CutSuffix(r.PathValue("file"), ".json")
	var doc []byte
	if src := h.sources[name]; src != nil && name+".json" == r.PathValue("file") {
		doc, _ = src.clientMetadataJSON()
	}
	if doc == nil {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "public, max-age=300") // the AS may cache it
	_, _ = w.Write(doc)
}

func hashHex(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

// fail answers 500 for a failure of the gateway's own (the store); the
// error is logged, not shown.
func (h *ConnectHandler) fail(w http.ResponseWriter, r *http.Request, doing string, err error) {
	if errors.Is(err, context.Canceled) && r.Context().Err() != nil {
		return
	}
	h.log.Error("oauth connect: "+doing, "error", err)
	h.page(w, http.StatusInternalServerError, page{Title: "Error", Message: "The gateway could not " + doing + ". Try again later."})
}

var (
	expiredLink  = page{Title: "Link expired", Message: "This connect link has expired or was already used. Retry the call in your client to get a new one."}
	unknownState = page{Title: "Not connected", Message: "This sign-in is unknown, expired or already finished. Retry the call in your client to get a new link."}
)

type page struct {
	Title, Message, Detail string
	Form                   *form
}

type form struct{ Action, CSRF, Button string }

var pageTmpl = template.Must(template.New("page").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">
<title>{{.Title}} · wasmgate</title></head>
<body><main>
<h1>{{.Title}}</h1>
<p id="message">{{.Message}}</p>
{{with .Detail}}<p id="detail">{{.}}</p>{{end}}
{{with .Form}}<form method="post" action="{{.Action}}"><input type="hidden" name="csrf" value="{{.CSRF}}"><button type="submit" id="connect">{{.Button}}</button></form>{{end}}
</main></body></html>
`))

func (h *ConnectHandler) page(w http.ResponseWriter, status int, p page) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	if err := pageTmpl.Execute(w, p); err != nil {
		h.log.Debug("oauth connect: write page", "error", err)
	}
}
