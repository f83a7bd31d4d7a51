//! The connection layer under the router, built for a public address (docs/API.md,
//! "Connections"): a request head must arrive in time, a body too, a connection with no traffic
//! is closed, connections past the cap are refused in the envelope, and a shutdown drains for a
//! bounded time and then closes what is left. hyper answers requests it cannot parse by itself,
//! with an empty body; [`Guarded`] turns those answers into the envelope as well.

use std::collections::HashMap;
use std::future::Future;
use std::io;
use std::net::{IpAddr, SocketAddr};
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll, ready};
use std::time::Duration;

use axum::Router;
use axum::body::{Body, Bytes, HttpBody};
use axum::extract::ConnectInfo;
use http_body::{Frame, SizeHint};
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{Semaphore, watch};
use tokio::task::JoinSet;
use tokio::time::{Instant, Sleep};
use tower::ServiceExt;

use super::metrics;
use svc_model::{ErrorBody, ErrorCode, IdKind};

/// The largest request head (request line and headers) read; a larger one is refused.
pub const MAX_HEAD_BYTES: usize = 32 * 1024;

/// How connections are bounded; `svc server start` reads each from a flag.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Connections {
    /// From the connection's start, or the end of the previous answer, to the end of a head.
    pub header_timeout: Duration,
    /// From the end of a head to the end of its body.
    pub body_timeout: Duration,
    /// No byte either way for this long closes the connection, wherever it is.
    pub idle_timeout: Duration,
    /// Connections served at once; the next is answered `rate_limited` and closed.
    pub max_connections: usize,
    /// Connections served at once from one client address, so that one address cannot hold
    /// every slot; `None` when every connection comes from a trusted proxy.
    pub per_address: Option<usize>,
    /// How long a shutdown waits for requests in flight before it closes their connections.
    pub drain: Duration,
}

impl Default for Connections {
    fn default() -> Self {
        Connections {
            header_timeout: Duration::from_secs(10),
            body_timeout: Duration::from_secs(30),
            idle_timeout: Duration::from_secs(60),
            max_connections: 4096,
            per_address: Some(4096 / PER_ADDRESS_SHARE),
            drain: Duration::from_secs(10),
        }
    }
}

/// One address may hold this share of the connection slots by default: an eighth.
pub const PER_ADDRESS_SHARE: usize = 8;

/// The connections open per client address.
type PerAddress = Arc<std::sync::Mutex<HashMap<IpAddr, usize>>>;

/// An open connection's place in its address's count, given back when it closes.
struct AddressSlot {
    counts: PerAddress,
    ip: IpAddr,
}

impl AddressSlot {
    /// A place for a connection from `ip`, if it has fewer than `cap` open.
    fn take(counts: &PerAddress, ip: IpAddr, cap: usize) -> Option<AddressSlot> {
        let mut map = counts
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let open = map.entry(ip).or_insert(0);
        if *open >= cap {
            return None;
        }
        *open += 1;
        Some(AddressSlot {
            counts: counts.clone(),
            ip,
        })
    }
}

impl Drop for AddressSlot {
    fn drop(&mut self) {
        let mut map = self
            .counts
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(open) = map.get_mut(&self.ip) {
            *open -= 1;
            if *open == 0 {
                map.remove(&self.ip);
            }
        }
    }
}

/// Serves `app` on `listener` until `shutdown` completes; then stops accepting, lets requests
/// in flight finish for at most `limits.drain`, and closes every connection still open.
pub async fn serve(
    listener: TcpListener,
    app: Router,
    limits: Connections,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> io::Result<()> {
    let permits = Arc::new(Semaphore::new(limits.max_connections.max(1)));
    let per_address = PerAddress::default();
    let mut http = http1::Builder::new();
    http.timer(TokioTimer::new())
        .header_read_timeout(limits.header_timeout)
        .max_header_size(MAX_HEAD_BYTES)
        .max_buf_size(MAX_HEAD_BYTES * 2);
    let (stop, stopping) = watch::channel(false);
    let mut open = JoinSet::new();
    tokio::pin!(shutdown);
    loop {
        let (stream, peer) = tokio::select! {
            () = &mut shutdown => break,
            Some(_) = open.join_next(), if !open.is_empty() => continue,
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(error) => {
                    // Out of descriptors, most likely: waiting lets connections close first
                    // instead of spinning on the same error.
                    tracing::warn!(%error, "accepting a connection failed");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
        };
        let _ = stream.set_nodelay(true);
        let slot = match limits.per_address {
            None => None,
            Some(cap) => match AddressSlot::take(&per_address, peer.ip(), cap) {
                Some(slot) => Some(slot),
                None => {
                    metrics::refused(metrics::Cap::Address);
                    open.spawn(refuse_busy(
                        stream,
                        format!(
                            "this address has {cap} connections open, its share of the server's; retry in a second, and close connections you do not use"
                        ),
                    ));
                    continue;
                }
            },
        };
        match permits.clone().try_acquire_owned() {
            Ok(permit) => {
                let counted = metrics::OpenConnection::count();
                let connection = serve_connection(
                    stream,
                    peer,
                    app.clone(),
                    http.clone(),
                    limits,
                    stopping.clone(),
                );
                open.spawn(async move {
                    connection.await;
                    drop((permit, slot, counted));
                });
            }
            Err(_) => {
                metrics::refused(metrics::Cap::Server);
                open.spawn(refuse_busy(
                    stream,
                    format!(
                        "the server has {} connections open, as many as it serves at once; retry in a second, and close connections you do not use",
                        limits.max_connections
                    ),
                ));
            }
        }
    }
    drop(listener);
    let _ = stop.send(true);
    let drained = tokio::time::timeout(limits.drain, async {
        while open.join_next().await.is_some() {}
    })
    .await;
    if drained.is_err() {
        tracing::warn!(
            connections = open.len(),
            drain_secs = limits.drain.as_secs_f64(),
            "closing the connections still open after the drain"
        );
        open.shutdown().await;
    }
    Ok(())
}

async fn serve_connection(
    stream: TcpStream,
    peer: SocketAddr,
    app: Router,
    http: http1::Builder,
    limits: Connections,
    mut stopping: watch::Receiver<bool>,
) {
    let body_timeout = limits.body_timeout;
    let service = hyper::service::service_fn(move |mut request: hyper::Request<Incoming>| {
        // The peer address is the client's for the sign-in limits (unless a trusted proxy
        // names it).
        request.extensions_mut().insert(ConnectInfo(peer));
        let request = request.map(|body| Body::new(Deadline::new(body, body_timeout)));
        app.clone().oneshot(request)
    });
    let io = TokioIo::new(Guarded::new(stream, limits.idle_timeout));
    let connection = http.serve_connection(io, service);
    tokio::pin!(connection);
    let stop = async move {
        // The guard wait_for returns is not Send: it is dropped at once.
        let _ = stopping.wait_for(|stop| *stop).await.is_ok();
    };
    let finished = tokio::select! {
        finished = connection.as_mut() => finished,
        () = stop => {
            connection.as_mut().graceful_shutdown();
            connection.await
        }
    };
    if let Err(error) = finished {
        tracing::debug!(%peer, %error, "connection ended");
    }
}

/// Answers a connection past the cap with `rate_limited` and closes it. The request is read
/// first (briefly) so that closing does not reset the connection before the answer arrives.
async fn refuse_busy(mut stream: TcpStream, why: String) {
    let refusal = async {
        let mut head = [0u8; 4096];
        let _ = tokio::time::timeout(Duration::from_millis(500), stream.read(&mut head)).await;
        let response = envelope_response(
            429,
            "Too Many Requests",
            ErrorCode::RateLimited,
            &why,
            Some(1),
        );
        stream.write_all(&response).await?;
        stream.shutdown().await
    };
    let _ = tokio::time::timeout(Duration::from_secs(2), refusal).await;
}

/// A whole response in the envelope, for answers given below the router.
fn envelope_response(
    status: u16,
    reason: &str,
    code: ErrorCode,
    message: &str,
    retry_after: Option<u64>,
) -> Vec<u8> {
    let request_id = IdKind::Request.generate();
    tracing::info!(
        id = %request_id,
        status,
        error = %code,
        "request refused before it was read"
    );
    let body = serde_json::to_vec(&ErrorBody {
        error: code.as_str().to_owned(),
        message: message.to_owned(),
        details: None,
        request_id: request_id.clone(),
    })
    .unwrap_or_default();
    let retry = retry_after.map_or_else(String::new, |s| format!("retry-after: {s}\r\n"));
    let mut response = format!(
        "HTTP/1.1 {status} {reason}\r\ncontent-type: application/json\r\nx-request-id: {request_id}\r\n{retry}connection: close\r\ncontent-length: {}\r\n\r\n",
        body.len()
    )
    .into_bytes();
    response.extend_from_slice(&body);
    response
}

/// What the envelope says in place of hyper's own empty answer with `status`.
fn parse_refusal(status: u16) -> Vec<u8> {
    let message = match status {
        431 => format!(
            "the request's head (request line and headers) is larger than {} KiB; send fewer or shorter headers",
            MAX_HEAD_BYTES / 1024
        ),
        414 => "the request's URL is too long; send the values in the body or in shorter query parameters".to_owned(),
        _ => "the request could not be read as HTTP/1.1: its request line or a header is malformed (a control character, a raw non-ASCII byte in the URL instead of its percent-encoding, or a folded header line); fix the request and send it again".to_owned(),
    };
    let code = ErrorCode::ValidationError;
    envelope_response(code.http_status(), "Bad Request", code, &message, None)
}

/// A response head that hyper wrote by itself: an error status and no request id (every answer
/// of the router carries one). Its status, if so.
fn bare_refusal(written: &[u8]) -> Option<u16> {
    let rest = written.strip_prefix(b"HTTP/1.1 ")?;
    let status: u16 = std::str::from_utf8(rest.get(..3)?).ok()?.parse().ok()?;
    if status < 400 {
        return None;
    }
    let end = written.windows(4).position(|w| w == b"\r\n\r\n")?;
    let head = written[..end].to_ascii_lowercase();
    let tagged = head.windows(13).any(|w| w == b"x-request-id:");
    (!tagged).then_some(status)
}

/// A client connection with an idle time limit, whose bare parse-error answers are rewritten.
struct Guarded {
    stream: TcpStream,
    idle: Duration,
    last: Instant,
    timer: Pin<Box<Sleep>>,
    /// The envelope answer still to write in place of hyper's, and how much of it is written.
    refusal: Option<(Vec<u8>, usize)>,
}

impl Guarded {
    fn new(stream: TcpStream, idle: Duration) -> Guarded {
        let now = Instant::now();
        Guarded {
            stream,
            idle,
            last: now,
            timer: Box::pin(tokio::time::sleep_until(now + idle)),
            refusal: None,
        }
    }

    fn active(&mut self) {
        self.last = Instant::now();
    }

    /// Called when the socket has nothing to give or take: ready with an error once the
    /// connection has been idle for the whole limit. The timer is moved only when it fires.
    fn poll_idle(&mut self, cx: &mut Context<'_>) -> Poll<io::Error> {
        loop {
            ready!(self.timer.as_mut().poll(cx));
            let until = self.last + self.idle;
            if Instant::now() >= until {
                return Poll::Ready(io::Error::new(
                    io::ErrorKind::TimedOut,
                    "connection idle for too long",
                ));
            }
            self.timer.as_mut().reset(until);
        }
    }

    fn poll_write_refusal(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        while let Some((bytes, done)) = &mut self.refusal {
            if *done == bytes.len() {
                break;
            }
            match Pin::new(&mut self.stream).poll_write(cx, &bytes[*done..]) {
                Poll::Ready(Ok(0)) => return Poll::Ready(Err(io::ErrorKind::WriteZero.into())),
                Poll::Ready(Ok(n)) => {
                    *done += n;
                    self.last = Instant::now();
                }
                Poll::Ready(Err(e)) => return Poll::Ready(Err(e)),
                Poll::Pending => {
                    return match self.poll_idle(cx) {
                        Poll::Ready(e) => Poll::Ready(Err(e)),
                        Poll::Pending => Poll::Pending,
                    };
                }
            }
        }
        Poll::Ready(Ok(()))
    }
}

impl AsyncRead for Guarded {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        match Pin::new(&mut this.stream).poll_read(cx, buf) {
            Poll::Ready(result) => {
                this.active();
                Poll::Ready(result)
            }
            Poll::Pending => this.poll_idle(cx).map(Err),
        }
    }
}

impl AsyncWrite for Guarded {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        if this.refusal.is_none()
            && let Some(status) = bare_refusal(buf)
        {
            this.refusal = Some((parse_refusal(status), 0));
        }
        if this.refusal.is_some() {
            // hyper's own answer is taken as written; the envelope goes out in its place.
            ready!(this.poll_write_refusal(cx))?;
            return Poll::Ready(Ok(buf.len()));
        }
        match Pin::new(&mut this.stream).poll_write(cx, buf) {
            Poll::Ready(result) => {
                this.active();
                Poll::Ready(result)
            }
            Poll::Pending => this.poll_idle(cx).map(Err),
        }
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        ready!(this.poll_write_refusal(cx))?;
        Pin::new(&mut this.stream).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        ready!(this.poll_write_refusal(cx))?;
        Pin::new(&mut this.stream).poll_shutdown(cx)
    }
}

/// A request body that must arrive whole within a time limit from the end of its head.
struct Deadline {
    body: Incoming,
    limit: Duration,
    timer: Pin<Box<Sleep>>,
}

impl Deadline {
    fn new(body: Incoming, limit: Duration) -> Deadline {
        Deadline {
            body,
            limit,
            timer: Box::pin(tokio::time::sleep(limit)),
        }
    }
}

/// The error a body that came too slowly ends with; [`super::extract::json_object`] names it.
#[derive(Debug, thiserror::Error)]
#[error(
    "the request body did not arrive within {} s of its head; send the whole body at once",
    .0.as_secs()
)]
pub struct BodyTooSlow(pub Duration);

impl HttpBody for Deadline {
    type Data = Bytes;
    type Error = axum::BoxError;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Self::Error>>> {
        let this = self.get_mut();
        if let Poll::Ready(frame) = Pin::new(&mut this.body).poll_frame(cx) {
            return Poll::Ready(frame.map(|f| f.map_err(Into::into)));
        }
        ready!(this.timer.as_mut().poll(cx));
        Poll::Ready(Some(Err(BodyTooSlow(this.limit).into())))
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.body.size_hint()
    }
}

/// Raises the soft limit on open files to the hard limit, so that the connection cap, not the
/// descriptor table, decides how many clients are served. Returns the limit now in force.
#[cfg(unix)]
pub fn raise_open_files_limit() -> io::Result<u64> {
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit and setrlimit only read and write the struct passed to them.
    unsafe {
        if libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) != 0 {
            return Err(io::Error::last_os_error());
        }
        if limit.rlim_cur < limit.rlim_max {
            let raised = libc::rlimit {
                rlim_cur: limit.rlim_max,
                rlim_max: limit.rlim_max,
            };
            if libc::setrlimit(libc::RLIMIT_NOFILE, &raised) != 0 {
                return Ok(limit.rlim_cur);
            }
            return Ok(raised.rlim_cur);
        }
    }
    Ok(limit.rlim_cur)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_bare_error_heads_are_taken_for_hyper_refusals() {
        assert_eq!(
            bare_refusal(b"HTTP/1.1 400 Bad Request\r\ncontent-length: 0\r\ndate: x\r\n\r\n"),
            Some(400)
        );
        assert_eq!(
            bare_refusal(b"HTTP/1.1 431 Request Header Fields Too Large\r\n\r\n"),
            Some(431)
        );
        assert_eq!(
            bare_refusal(b"HTTP/1.1 404 Not Found\r\nX-Request-Id: req_1\r\n\r\n{}"),
            None
        );
        assert_eq!(bare_refusal(b"HTTP/1.1 100 Continue\r\n\r\n"), None);
        assert_eq!(bare_refusal(b"HTTP/1.1 200 OK\r\n\r\n"), None);
        assert_eq!(bare_refusal(b"{\"items\":[]}"), None);
    }

    #[test]
    fn a_rewritten_refusal_is_a_whole_envelope_response() {
        let response = String::from_utf8(parse_refusal(431)).unwrap();
        let (head, body) = response.split_once("\r\n\r\n").unwrap();
        assert!(head.starts_with("HTTP/1.1 400 "), "{head}");
        assert!(head.contains("x-request-id: req_"), "{head}");
        assert!(head.contains(&format!("content-length: {}", body.len())));
        let body: serde_json::Value = serde_json::from_str(body).unwrap();
        assert_eq!(body["error"], "validation_error");
        assert!(body["message"].as_str().unwrap().contains("32 KiB"));
    }
}
