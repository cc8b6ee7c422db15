package plugin

import "github.com/wasmgate/wasmgate/loader/egress"

// AppConnectDomains are the origins the plugin's MCP Apps may connect to:
// its allowed_hosts as https:// origins (egress.ConnectDomains), nothing
// else. The index and the envelope put them in each of its ui://
// resources' _meta.ui.csp, whatever the plugin wrote there
// (source.AppGranted).
func (p *Source) AppConnectDomains() []string { return egress.ConnectDomains(p.spec.AllowedHosts) }
