//! Accepted connections under the limits: at most `max_connections` open per listener
//! (further clients wait in the listen backlog), and a connection is closed when its
//! client sends nothing within `client_timeout` of connecting (a gRPC client that never
//! sends its preface) or stops reading a reply for `client_timeout` (a stalled write).

use std::future::Future;
use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tokio::time::Sleep;

/// A client connection holding one of the listener's connection slots.
pub struct Timed {
    stream: TcpStream,
    _slot: OwnedSemaphorePermit,
    timeout: Duration,
    /// Until the first byte arrives: when the client must have sent it.
    first_byte: Option<Pin<Box<Sleep>>>,
    /// While a write is blocked: when the client must have read some of the reply.
    write_stall: Option<Pin<Box<Sleep>>>,
}

impl Timed {
    pub fn stream(&self) -> &TcpStream {
        &self.stream
    }
}

fn timed_out(what: &str, timeout: Duration) -> io::Error {
    io::Error::new(
        io::ErrorKind::TimedOut,
        format!("client {what} for {:.1} s", timeout.as_secs_f64()),
    )
}

impl AsyncRead for Timed {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let before = buf.filled().len();
        let this = &mut *self;
        match Pin::new(&mut this.stream).poll_read(cx, buf) {
            Poll::Ready(result) => {
                if buf.filled().len() > before {
                    this.first_byte = None;
                }
                Poll::Ready(result)
            }
            Poll::Pending => {
                let expired = this
                    .first_byte
                    .as_mut()
                    .is_some_and(|sleep| sleep.as_mut().poll(cx).is_ready());
                if expired {
                    Poll::Ready(Err(timed_out("sent nothing", this.timeout)))
                } else {
                    Poll::Pending
                }
            }
        }
    }
}

impl Timed {
    fn stalled(&mut self, cx: &mut Context<'_>) -> Poll<io::Error> {
        let timeout = self.timeout;
        let sleep = self
            .write_stall
            .get_or_insert_with(|| Box::pin(tokio::time::sleep(timeout)));
        match sleep.as_mut().poll(cx) {
            Poll::Ready(()) => Poll::Ready(timed_out("read nothing of the reply", timeout)),
            Poll::Pending => Poll::Pending,
        }
    }
}

impl AsyncWrite for Timed {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        data: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = &mut *self;
        match Pin::new(&mut this.stream).poll_write(cx, data) {
            Poll::Ready(result) => {
                this.write_stall = None;
                Poll::Ready(result)
            }
            Poll::Pending => this.stalled(cx).map(Err),
        }
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let this = &mut *self;
        match Pin::new(&mut this.stream).poll_write_vectored(cx, bufs) {
            Poll::Ready(result) => {
                this.write_stall = None;
                Poll::Ready(result)
            }
            Poll::Pending => this.stalled(cx).map(Err),
        }
    }

    fn is_write_vectored(&self) -> bool {
        self.stream.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_shutdown(cx)
    }
}

impl tonic::transport::server::Connected for Timed {
    type ConnectInfo = tonic::transport::server::TcpConnectInfo;

    fn connect_info(&self) -> Self::ConnectInfo {
        self.stream.connect_info()
    }
}

/// A listener that hands out at most `max_connections` open connections at a time.
pub struct Acceptor {
    listener: TcpListener,
    slots: Arc<Semaphore>,
    timeout: Duration,
}

impl Acceptor {
    pub fn new(listener: TcpListener, limits: &super::Limits) -> Acceptor {
        Acceptor {
            listener,
            slots: Arc::new(Semaphore::new(limits.max_connections)),
            timeout: limits.client_timeout,
        }
    }

    /// The next connection, once a slot is free. Accept errors (e.g. out of file
    /// descriptors) are retried after a pause rather than ending the server.
    pub async fn accept(&self) -> Timed {
        let slot = self
            .slots
            .clone()
            .acquire_owned()
            .await
            .expect("the connection semaphore is never closed");
        loop {
            match self.listener.accept().await {
                Ok((stream, _)) => {
                    let _ = stream.set_nodelay(true);
                    return Timed {
                        stream,
                        _slot: slot,
                        timeout: self.timeout,
                        first_byte: Some(Box::pin(tokio::time::sleep(self.timeout))),
                        write_stall: None,
                    };
                }
                Err(error) => {
                    tracing::warn!("accept failed: {error}");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
            }
        }
    }

    /// The connections as a stream (for tonic).
    pub fn into_stream(self) -> impl futures_util::Stream<Item = io::Result<Timed>> + Send {
        futures_util::stream::unfold(self, |acceptor| async move {
            let connection = acceptor.accept().await;
            Some((Ok(connection), acceptor))
        })
    }
}
