# The Varnish side of resource-api's HTTP caching (docs/http-cache.md), for Varnish 6 or 7 with varnish-modules.
# Include it after your backends, in a VCL of yours:
#
#   vcl 4.1;
#   backend app { .host = "127.0.0.1"; .port = "3000"; }
#   include "/path/to/node_modules/@resource-api/core/varnish/resource-api.vcl";
#
# and give the app `httpCache: { purgers: [createVarnishPurger({ url: 'http://127.0.0.1:6081' })] }`. Your own
# vcl_recv, vcl_backend_response and vcl_deliver, if any, run before these (Varnish joins subroutines of one name).
#
# - Objects are indexed by the app's `Cache-Tags` header (its IRIs), which becomes the xkey module's `xkey`.
# - `PURGE /` with an `xkey` header (createVarnishPurger's default) removes every object listing one of its tags;
#   `BAN /` with `X-Ban-Tags` (mode: 'ban') bans them by a regular expression on `Cache-Tags`.
# - Only the addresses in `resource_api_purgers` may purge: add your app servers' addresses.
# - Requests with credentials, and responses marked `private` or `no-store`, are never kept (Varnish's built-in
#   rules, which run after these), so what one caller may see is never shown to another; nor are responses that carry
#   neither `Cache-Control` nor tags.

import std;
import xkey;

acl resource_api_purgers {
  "127.0.0.1";
  "::1";
}

sub vcl_recv {
  if (req.method == "PURGE") {
    if (client.ip !~ resource_api_purgers) {
      return (synth(403, "Not allowed to purge"));
    }
    if (!req.http.xkey) {
      return (synth(400, "PURGE needs an xkey header"));
    }
    set req.http.X-Purged = xkey.purge(req.http.xkey);
    return (synth(200, "Invalidated " + req.http.X-Purged + " objects"));
  }
  if (req.method == "BAN") {
    if (client.ip !~ resource_api_purgers) {
      return (synth(403, "Not allowed to ban"));
    }
    if (!req.http.X-Ban-Tags) {
      return (synth(400, "BAN needs an X-Ban-Tags header"));
    }
    # The expression is split at spaces and takes no quotes: createVarnishPurger sends a regular expression without
    # either (special characters in brackets).
    if (std.ban("obj.http.Cache-Tags ~ " + req.http.X-Ban-Tags)) {
      return (synth(200, "Banned"));
    }
    return (synth(400, std.ban_error()));
  }
}

sub vcl_backend_response {
  # Kept only when the app said so: a response with neither `Cache-Control` nor tags (a route of your own, a server in
  # front of the app) would otherwise be kept for Varnish's default lifetime, where no purge of the app can reach it.
  if (!beresp.http.Cache-Control && !beresp.http.Cache-Tags && !beresp.http.xkey) {
    set beresp.uncacheable = true;
    set beresp.ttl = 120s;
    return (deliver);
  }
  # The xkey module indexes an object by its `xkey` header: the app's tags, space-separated.
  if (beresp.http.Cache-Tags) {
    set beresp.http.xkey = regsuball(beresp.http.Cache-Tags, ",\s*", " ");
  }
}

sub vcl_deliver {
  # The index is Varnish's business; the tags stay, as the app sent them.
  unset resp.http.xkey;
}
