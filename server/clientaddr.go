package server

import (
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strings"
)

// proxies are the prefixes of the trusted reverse proxies, from
// [server] trusted_proxies.
type proxies []netip.Prefix

// parseProxies reads trusted_proxies: each an IP address or a CIDR prefix.
func parseProxies(list []string) (proxies, error) {
	var ps proxies
	for i, s := range list {
		p, err := netip.ParsePrefix(s)
		if err != nil {
			a, aerr := netip.ParseAddr(s)
			if aerr != nil {
				return nil, fmt.Errorf("trusted_proxies[%d] %q is not an IP address or a CIDR prefix", i, s)
			}
			p = netip.PrefixFrom(a, a.BitLen())
		}
		ps = append(ps, p.Masked())
	}
	return ps, nil
}

func (ps proxies) trust(a netip.Addr) bool {
	a = a.Unmap()
	for _, p := range ps {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// clientKey names the client r comes from: its peer's address or, when the
// peer is a trusted proxy, the last address of X-Forwarded-For that is not
// a trusted proxy (the first ones are the client's to write). An IPv6
// client is known by its /64, since one host may hold all of it.
func (ps proxies) clientKey(r *http.Request) string {
	client, err := netip.ParseAddrPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	addr := client.Addr().Unmap()
	hops := forwardedFor(r.Header.Values("X-Forwarded-For"))
	for i := len(hops) - 1; i >= 0 && ps.trust(addr); i-- {
		hop, ok := parseHop(hops[i])
		if !ok {
			break
		}
		addr = hop
	}
	if addr.Is6() {
		p, _ := addr.Prefix(64)
		return p.String()
	}
	return addr.String()
}

// forwardedHTTPS reports whether r comes from a trusted proxy that
// received it over https: the first value of its X-Forwarded-Proto, the
// scheme the client used, is https. From any other peer the header is
// the client's to write and is ignored.
func (ps proxies) forwardedHTTPS(r *http.Request) bool {
	peer, err := netip.ParseAddrPort(r.RemoteAddr)
	if err != nil || !ps.trust(peer.Addr()) {
		return false
	}
	first, _, _ := strings.Cut(r.Header.Get("X-Forwarded-Proto"), ",")
	return strings.EqualFold(strings.TrimSpace(first), "https")
}

// forwardedFor splits X-Forwarded-For headers into their addresses, in
// order.
func forwardedFor(headers []string) []string {
	var hops []string
	for _, h := range headers {
		for hop := range strings.SplitSeq(h, ",") {
			hops = append(hops, strings.TrimSpace(hop))
		}
	}
	return hops
}

// parseHop reads one X-Forwarded-For entry: an address, with or without a
// port.
func parseHop(s string) (netip.Addr, bool) {
	if a, err := netip.ParseAddr(s); err == nil {
		return a.Unmap(), true
	}
	host, _, err := net.SplitHostPort(s)
	if err != nil {
		return netip.Addr{}, false
	}
	a, err := netip.ParseAddr(host)
	return a.Unmap(), err == nil
}
