package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/wasmgate/wasmgate/internal/oauthtest"
)

// RTT is what -rtt prints with -json.
type RTT struct {
	URL   string  `json:"url"`
	N     int     `json:"n"`
	P50Ms float64 `json:"p50_ms"`
	P99Ms float64 `json:"p99_ms"`
}

// measureRTT exchanges the first caller token of tokenFile at tokenURL n
// times in a row (after one unrecorded exchange that opens the
// connection) and prints the round trips' p50 and p99.
func measureRTT(ctx context.Context, tokenURL, tokenFile string, n int, asJSON bool, stdout io.Writer) error {
	b, err := os.ReadFile(tokenFile)
	if err != nil {
		return fmt.Errorf("-token-file: %w", err)
	}
	tok, _, _ := strings.Cut(strings.TrimSpace(string(b)), "\n")
	if tok == "" {
		return fmt.Errorf("-token-file: %s holds no token", tokenFile)
	}
	form := url.Values{
		"grant_type":           {grantTokenExchange},
		"subject_token":        {strings.TrimSpace(tok)},
		"subject_token_type":   {"urn:ietf:params:oauth:token-type:access_token"},
		"requested_token_type": {"urn:ietf:params:oauth:token-type:access_token"},
		"audience":             {"https://upstream.bench"},
	}.Encode()
	client := newClient()
	defer client.CloseIdleConnections()
	exchange := func() (time.Duration, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, tokenURL, strings.NewReader(form))
		if err != nil {
			return 0, fmt.Errorf("building the exchange: %w", err)
		}
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.SetBasicAuth(oauthtest.ClientID, oauthtest.ClientSecret)
		t0 := time.Now()
		resp, err := client.Do(req)
		if err != nil {
			return 0, fmt.Errorf("token exchange: %w", err)
		}
		var ans struct {
			AccessToken string `json:"access_token"`
		}
		err = json.NewDecoder(resp.Body).Decode(&ans)
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		d := time.Since(t0)
		if resp.StatusCode != http.StatusOK || err != nil || ans.AccessToken == "" {
			return 0, fmt.Errorf("token exchange: HTTP %d, no access token (%v)", resp.StatusCode, err)
		}
		return d, nil
	}
	if _, err := exchange(); err != nil {
		return err
	}
	rtts := make([]time.Duration, 0, n)
	for range n {
		d, err := exchange()
		if err != nil {
			return err
		}
		rtts = append(rtts, d)
	}
	slices.Sort(rtts)
	r := RTT{URL: tokenURL, N: n, P50Ms: ms(rtts[(n-1)/2]), P99Ms: ms(rtts[int(math.Ceil(0.99*float64(n)))-1])}
	fmt.Fprintf(stdout, "token exchange round trip n=%d p50=%.3fms p99=%.3fms\n", r.N, r.P50Ms, r.P99Ms)
	if asJSON {
		line, err := json.Marshal(r)
		if err != nil {
			return fmt.Errorf("encoding: %w", err)
		}
		fmt.Fprintf(stdout, "%s\n", line)
	}
	return nil
}

func ms(d time.Duration) float64 { return math.Round(float64(d)/1e3) / 1e3 }
