//! A small HTTP/1.1 server on 127.0.0.1 for the stand-ins of GitHub and the LLM providers:
//! each request is read whole and handed to an async handler; the server stops when dropped.

use std::future::Future;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;

use bytes::Bytes;
use http_body_util::{BodyExt, Channel, Either, Full};
use hyper::service::service_fn;
use hyper::{HeaderMap, Response, StatusCode};
use hyper_util::rt::TokioIo;

/// A request as the handler sees it.
pub struct Incoming {
    /// Method.
    pub method: String,
    /// Path without the query.
    pub path: String,
    /// Query string.
    pub query: String,
    /// Headers.
    pub headers: HeaderMap,
    /// Body.
    pub body: Bytes,
}

/// The status that makes the server close the connection without answering.
pub const DROP: u16 = 0;

/// An answer: status, headers, body.
pub struct Answer {
    /// Status.
    pub status: u16,
    /// Headers.
    pub headers: Vec<(String, String)>,
    /// Body.
    pub body: String,
    /// Send the status, the headers (with the whole body's length) and the first half of the
    /// body, hold the connection this long, then close it without the rest.
    pub stall: Option<std::time::Duration>,
}

impl Answer {
    /// An answer with this status, one content type and body.
    pub fn text(status: u16, content_type: &str, body: &str) -> Answer {
        Answer {
            status,
            headers: vec![("content-type".into(), content_type.into())],
            body: body.into(),
            stall: None,
        }
    }

    /// The connection closed without an answer.
    pub fn drop_connection() -> Answer {
        Answer {
            status: DROP,
            headers: Vec::new(),
            body: String::new(),
            stall: None,
        }
    }

    /// This answer cut in the middle of its body after a stall of `d`.
    pub fn stalled(mut self, d: std::time::Duration) -> Answer {
        self.stall = Some(d);
        self
    }

    /// A JSON answer (`Null` gives an empty body).
    pub fn json(status: u16, body: &serde_json::Value) -> Answer {
        Answer {
            status,
            headers: vec![(
                "content-type".into(),
                "application/json; charset=utf-8".into(),
            )],
            body: if body.is_null() {
                String::new()
            } else {
                body.to_string()
            },
            stall: None,
        }
    }

    /// This answer with one more header.
    pub fn with_header(mut self, k: &str, v: &str) -> Answer {
        self.headers.push((k.into(), v.into()));
        self
    }
}

type Handler = Arc<dyn Fn(Incoming) -> Pin<Box<dyn Future<Output = Answer> + Send>> + Send + Sync>;

/// The running server.
pub struct Server {
    /// Its address.
    pub addr: SocketAddr,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Server {
    /// Starts a server answering with `handler`.
    pub fn start<F, Fut>(handler: F) -> Server
    where
        F: Fn(Incoming) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Answer> + Send + 'static,
    {
        let handler: Handler = Arc::new(move |i| Box::pin(handler(i)));
        let (tx, rx) = std::sync::mpsc::channel();
        let (stop_tx, mut stop_rx) = tokio::sync::oneshot::channel::<()>();
        let thread = std::thread::spawn(move || {
            let rt = tokio::runtime::Builder::new_multi_thread()
                .worker_threads(2)
                .enable_all()
                .build()
                .expect("runtime");
            rt.block_on(async move {
                let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
                    .await
                    .expect("bind");
                tx.send(listener.local_addr().expect("addr")).expect("send");
                loop {
                    tokio::select! {
                        _ = &mut stop_rx => break,
                        accepted = listener.accept() => {
                            let Ok((stream, _)) = accepted else { continue };
                            let h = handler.clone();
                            tokio::spawn(async move {
                                let svc = service_fn(move |req: hyper::Request<hyper::body::Incoming>| {
                                    let h = h.clone();
                                    async move {
                                        let (parts, body) = req.into_parts();
                                        let body = body.collect().await.map_err(|e| e.to_string())?.to_bytes();
                                        let a = h(Incoming {
                                            method: parts.method.as_str().to_string(),
                                            path: parts.uri.path().to_string(),
                                            query: parts.uri.query().unwrap_or_default().to_string(),
                                            headers: parts.headers,
                                            body,
                                        })
                                        .await;
                                        let mut r = Response::builder()
                                            .status(StatusCode::from_u16(a.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR));
                                        for (k, v) in &a.headers {
                                            r = r.header(k, v);
                                        }
                                        if a.status == DROP {
                                            // An error from the service makes hyper close the
                                            // connection without an answer.
                                            return Err("dropped on purpose".to_string());
                                        }
                                        let Some(stall) = a.stall else {
                                            return Ok::<_, String>(r.body(Either::Left(Full::new(Bytes::from(a.body)))).expect("response"));
                                        };
                                        // Half the body now, the rest never: the client has
                                        // the headers and a promise of more.
                                        let (mut tx, body) = Channel::<Bytes, String>::new(1);
                                        let whole = Bytes::from(a.body);
                                        let half = whole.slice(..whole.len() / 2);
                                        tokio::spawn(async move {
                                            let _ = tx.send_data(half).await;
                                            tokio::time::sleep(stall).await;
                                            tx.abort("stalled on purpose".to_string());
                                        });
                                        r = r.header("content-length", whole.len());
                                        Ok(r.body(Either::Right(body)).expect("response"))
                                    }
                                });
                                let _ = hyper::server::conn::http1::Builder::new()
                                    .serve_connection(TokioIo::new(stream), svc)
                                    .await;
                            });
                        }
                    }
                }
            });
        });
        let addr = rx.recv().expect("the server starts");
        Server {
            addr,
            stop: Some(stop_tx),
            thread: Some(thread),
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        if let Some(s) = self.stop.take() {
            let _ = s.send(());
        }
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}
