//! What every request of `pbem play` must show before it is served, and the headers every
//! answer carries.

use std::sync::atomic::Ordering;

use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Redirect, Response};

use super::App;

/// The cookie that carries the token after the first load: `pbem_token_PORT`, one per
/// server, since a browser keeps cookies per host, not per port (two `pbem play` at once
/// would otherwise overwrite each other's).
fn cookie_name(port: u16) -> String {
    format!("pbem_token_{port}")
}

/// The policy: the page's own script, style and pictures (the board's SVG is inline, the
/// pieces' pictures may be data URLs), nothing else, and no framing.
const POLICY: &str = "default-src 'self'; img-src 'self' data:; style-src 'self'; \
                      script-src 'self'; frame-ancestors 'none'";

/// Checks the `Host`, the token (taking it from the address once, into a cookie) and,
/// for a change, the `Origin`; then serves the request and adds the security headers.
/// Only a request that passes the checks keeps the server from stopping when idle (a
/// refused one, from another page or user, does not).
pub(super) async fn guard(State(shared): State<App>, request: Request, next: Next) -> Response {
    let checked = check(&shared, &request);
    if checked.is_ok() {
        let elapsed = u64::try_from(shared.started.elapsed().as_millis()).unwrap_or(u64::MAX);
        shared.last_request.store(elapsed, Ordering::Relaxed);
    }
    let mut response = match checked {
        Err(refusal) => (StatusCode::FORBIDDEN, refusal).into_response(),
        Ok(Some(redirect)) => redirect,
        Ok(None) => next.run(request).await,
    };
    let headers = response.headers_mut();
    for (name, value) in [
        (header::CONTENT_SECURITY_POLICY, POLICY),
        (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
        (header::REFERRER_POLICY, "no-referrer"),
        (header::CACHE_CONTROL, "no-store"),
        (header::X_FRAME_OPTIONS, "DENY"),
    ] {
        headers.insert(name, HeaderValue::from_static(value));
    }
    response
}

/// `Err`: the refusal's text; `Ok(Some)`: the answer that takes the token from the
/// address into the cookie; `Ok(None)`: serve the request.
fn check(shared: &App, request: &Request) -> Result<Option<Response>, String> {
    let port = shared.port;
    let printed = format!("http://127.0.0.1:{port}/?token=...");
    let headers = request.headers();
    let host = header_text(headers, header::HOST);
    let ours = [format!("127.0.0.1:{port}"), format!("localhost:{port}")];
    if !ours.iter().any(|name| Some(name.as_str()) == host) {
        return Err(format!(
            "pbem play: refused: the request names the server \"{}\" (Host header), not this one \
             (127.0.0.1:{port} or localhost:{port}); open the address `pbem play` printed ({printed})\n",
            host.unwrap_or("")
        ));
    }
    let host = host.unwrap_or_default();
    if let Some(given) = query_token(request.uri().query()) {
        if !same(given.as_bytes(), shared.token.as_bytes()) {
            return Err(format!(
                "pbem play: refused: the address's token is not this server's; open the address \
                 the running `pbem play` printed ({printed})\n"
            ));
        }
        // The token goes into a cookie, and out of the address (and the history).
        let rest: Vec<&str> = request
            .uri()
            .query()
            .unwrap_or_default()
            .split('&')
            .filter(|pair| !pair.starts_with("token="))
            .collect();
        let path = request.uri().path();
        let to = if rest.is_empty() {
            path.to_owned()
        } else {
            format!("{path}?{}", rest.join("&"))
        };
        let mut response = Redirect::to(&to).into_response();
        let cookie = format!(
            "{}={}; HttpOnly; SameSite=Strict; Path=/",
            cookie_name(port),
            shared.token
        );
        if let Ok(value) = HeaderValue::from_str(&cookie) {
            response.headers_mut().insert(header::SET_COOKIE, value);
        }
        return Ok(Some(response));
    }
    match cookie_token(headers, &cookie_name(port)) {
        None => {
            return Err(format!(
                "pbem play: refused: no token; open the address `pbem play` printed ({printed}), \
                 which gives this browser the token\n"
            ));
        }
        Some(given) if !same(given.as_bytes(), shared.token.as_bytes()) => {
            return Err(format!(
                "pbem play: refused: the token is not this server's (an older `pbem play`?); \
                 open the address the running `pbem play` printed ({printed})\n"
            ));
        }
        Some(_) => {}
    }
    if request.method() != Method::GET && request.method() != Method::HEAD {
        let origin = header_text(headers, header::ORIGIN);
        if origin != Some(format!("http://{host}").as_str()) {
            return Err(format!(
                "pbem play: refused: a change asked by another page (Origin \"{}\"); only the page \
                 of this server (http://{host}) may change a game\n",
                origin.unwrap_or("none")
            ));
        }
    }
    Ok(None)
}

fn header_text(headers: &HeaderMap, name: header::HeaderName) -> Option<&str> {
    headers.get(name).and_then(|value| value.to_str().ok())
}

/// The `token=` of a query string.
fn query_token(query: Option<&str>) -> Option<&str> {
    query?
        .split('&')
        .find_map(|pair| pair.strip_prefix("token="))
}

/// The token of the `Cookie` headers, in the cookie `name`.
fn cookie_token<'a>(headers: &'a HeaderMap, name: &str) -> Option<&'a str> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .flat_map(|value| value.split(';'))
        .find_map(|pair| pair.trim().strip_prefix(name)?.strip_prefix('='))
}

/// Equal bytes, compared in a time that does not tell where they differ.
fn same(given: &[u8], token: &[u8]) -> bool {
    given.len() == token.len()
        && given
            .iter()
            .zip(token)
            .fold(0u8, |differ, (a, b)| differ | (a ^ b))
            == 0
}
