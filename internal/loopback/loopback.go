// Package loopback says whether a host is this machine's loopback, and
// whether a URL is fit to be sent a credential: https://, or plain http://
// only to loopback, where nothing crosses the network.
package loopback

import (
	"fmt"
	"net/netip"
	"net/url"
	"strings"
)

// Is reports whether host is localhost or a loopback address (an IPv6
// address may be an IPv4 one mapped). Other names are not resolved: what
// they resolve to can change.
func Is(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.Unmap().IsLoopback()
}

// CheckURL requires raw, the value of the setting key, to be an absolute
// https:// URL, or http:// to a loopback host.
func CheckURL(key, raw string) error {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return fmt.Errorf("%s %q is not an absolute URL", key, raw)
	}
	if u.Scheme == "https" || (u.Scheme == "http" && Is(u.Hostname())) {
		return nil
	}
	return fmt.Errorf("%s %q must be https:// (http:// only to a loopback address)", key, raw)
}
