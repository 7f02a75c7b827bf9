//! Message framing on the protocols' byte streams — LSP's `Content-Length`
//! headers and MCP's one JSON message per line — and the size guard every
//! session sits behind ([`guarded`]).
//!
//! A client's message larger than its protocol's limit
//! ([`MAX_LSP_MESSAGE`], [`MAX_MCP_MESSAGE`]) is never held in memory: its
//! first bytes are kept to find the request's `id` and `method`, the rest
//! is skipped, and the client gets an error answer for that request while
//! the session goes on. A message that is not a JSON-RPC message is
//! answered by the guard too and never reaches the session ([`check`]).
//! Sessions also turn a panic while answering one request into that
//! request's error ([`panic_text`], [`fault_point`]). Knows no session, no
//! vault and no tool.

mod envelope;

pub use envelope::{INVALID_PARAMS, INVALID_REQUEST, Malformed, PARSE_ERROR, check};

use std::future::Future;

use serde_json::Value;
use tokio::io::{
    AsyncBufRead, AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader, DuplexStream,
};
use tokio::sync::mpsc;

/// Which protocol a stream carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Framing {
    Lsp,
    Mcp,
}

/// The largest LSP message a client may send (a whole buffer in
/// `didOpen`/`didChange` is the big one).
pub const MAX_LSP_MESSAGE: usize = 64 << 20;
/// The largest MCP message a client may send, its newline included (a
/// whole note in `write_note` is the big one).
pub const MAX_MCP_MESSAGE: usize = 16 << 20;
/// The largest message a server sends (a long answer). Servers are Weft's
/// own, so this only bounds what a broken stream could make a face hold.
pub const MAX_SERVER_MESSAGE: usize = 1 << 30;
/// The longest LSP header line.
const MAX_HEADER_LINE: usize = 8 << 10;
/// How much of an oversized message is kept to find its `id` and `method`
/// (clients write them before the parameters).
const KEPT: usize = 16 << 10;

/// What one read gave.
#[derive(Debug)]
pub enum Frame {
    Message(Vec<u8>),
    /// A message over the limit, skipped.
    TooLarge(TooLarge),
}

/// A message that was skipped for its size.
#[derive(Debug, Clone, PartialEq)]
pub struct TooLarge {
    pub framing: Framing,
    /// Its size in bytes (for MCP, its line's).
    pub size: u64,
    pub limit: usize,
    /// The request's id, when its first bytes hold it.
    pub id: Option<Value>,
    pub method: Option<String>,
}

/// Messages up to this size are written with their framing in one write
/// (copied once); larger ones in pieces, so no large copy is made.
const ONE_WRITE_UP_TO: usize = 1 << 20;

impl Framing {
    /// The largest message a client may send.
    pub fn client_limit(self) -> usize {
        match self {
            Framing::Lsp => MAX_LSP_MESSAGE,
            Framing::Mcp => MAX_MCP_MESSAGE,
        }
    }

    /// The next message, `None` at the end of the stream. A message over
    /// `limit` is skipped without being held ([`Frame::TooLarge`]); a stream
    /// that breaks the framing ends with an error.
    pub async fn read_frame<R: AsyncBufRead + Unpin>(
        self,
        reader: &mut R,
        limit: usize,
    ) -> std::io::Result<Option<Frame>> {
        match self {
            Framing::Mcp => loop {
                let Some(line) = read_line(reader, limit, KEPT).await? else {
                    return Ok(None);
                };
                match line {
                    Line::Whole(line) => {
                        let body = line.trim_ascii();
                        if !body.is_empty() {
                            return Ok(Some(Frame::Message(body.to_vec())));
                        }
                    }
                    Line::Cut { kept, size } => {
                        return Ok(Some(Frame::TooLarge(TooLarge::new(
                            self, size, limit, &kept,
                        ))));
                    }
                }
            },
            Framing::Lsp => {
                let mut length: Option<u64> = None;
                let mut any = false;
                loop {
                    let line = match read_line(reader, MAX_HEADER_LINE, 0).await? {
                        None if any => return Err(broken("the stream ended inside a header")),
                        None => return Ok(None),
                        Some(Line::Cut { .. }) => return Err(broken("a header line too long")),
                        Some(Line::Whole(line)) => line,
                    };
                    any = true;
                    let line = line.trim_ascii();
                    if line.is_empty() {
                        if length.is_some() {
                            break;
                        }
                        continue;
                    }
                    let text = String::from_utf8_lossy(line);
                    if let Some((name, value)) = text.split_once(':')
                        && name.trim().eq_ignore_ascii_case("content-length")
                    {
                        length = Some(
                            value
                                .trim()
                                .parse()
                                .map_err(|_| broken("a bad Content-Length"))?,
                        );
                    }
                }
                let length = length.unwrap_or(0);
                if length > limit as u64 {
                    let kept = read_up_to(reader, length.min(KEPT as u64) as usize).await?;
                    skip(reader, length - kept.len() as u64).await?;
                    return Ok(Some(Frame::TooLarge(TooLarge::new(
                        self, length, limit, &kept,
                    ))));
                }
                let body = read_up_to(reader, length as usize).await?;
                if body.len() as u64 != length {
                    return Err(broken("the stream ended inside a message"));
                }
                Ok(Some(Frame::Message(body)))
            }
        }
    }

    /// The next message's body, `None` at the end of the stream; a message
    /// over `limit` or a broken framing is an error.
    pub async fn read<R: AsyncBufRead + Unpin>(
        self,
        reader: &mut R,
        limit: usize,
    ) -> std::io::Result<Option<Vec<u8>>> {
        match self.read_frame(reader, limit).await? {
            None => Ok(None),
            Some(Frame::Message(body)) => Ok(Some(body)),
            Some(Frame::TooLarge(too_large)) => Err(broken(&too_large.describe())),
        }
    }

    /// Writes one message and flushes.
    pub async fn write<W: AsyncWrite + Unpin>(
        self,
        writer: &mut W,
        body: &[u8],
    ) -> std::io::Result<()> {
        let header = match self {
            Framing::Lsp => format!("Content-Length: {}\r\n\r\n", body.len()),
            Framing::Mcp => String::new(),
        };
        let trailer: &[u8] = match self {
            Framing::Lsp => b"",
            Framing::Mcp => b"\n",
        };
        // One write per message when it is not large: each write may be a
        // system call (or a hop to a blocking thread for stdout), and a
        // reader woken by a lone header only waits again for its body.
        if body.len() <= ONE_WRITE_UP_TO {
            let mut frame = Vec::with_capacity(header.len() + body.len() + trailer.len());
            frame.extend_from_slice(header.as_bytes());
            frame.extend_from_slice(body);
            frame.extend_from_slice(trailer);
            writer.write_all(&frame).await?;
        } else {
            writer.write_all(header.as_bytes()).await?;
            writer.write_all(body).await?;
            writer.write_all(trailer).await?;
        }
        writer.flush().await
    }
}

impl TooLarge {
    fn new(framing: Framing, size: u64, limit: usize, kept: &[u8]) -> TooLarge {
        let (id, method) = id_and_method(kept);
        TooLarge {
            framing,
            size,
            limit,
            id,
            method,
        }
    }

    /// A sentence for logs and answers.
    pub fn describe(&self) -> String {
        let what = match &self.method {
            Some(method) => format!("a `{method}` message"),
            None => "a message".to_string(),
        };
        format!(
            "{what} of {} was refused: Weft takes at most {} per {} message, and nothing was done \
             with it",
            size_text(self.size),
            size_text(self.limit as u64),
            match self.framing {
                Framing::Lsp => "LSP",
                Framing::Mcp => "MCP",
            }
        )
    }

    /// What the client is told: an error answer to a request (`id: null`
    /// when its id could not be read), for an LSP notification a message
    /// to show the user, for an MCP notification nothing.
    pub fn answer(&self) -> Option<Vec<u8>> {
        let notification = self.id.is_none() && self.method.is_some();
        let hint = match self.framing {
            Framing::Lsp => {
                "; the editor's view of that document may now differ from Weft's: close and reopen it"
            }
            Framing::Mcp => {
                "; send less at once (write a long note in parts, or change it with edit_note)"
            }
        };
        let message = format!("{}{hint}.", self.describe());
        let answer = match (notification, self.framing) {
            (true, Framing::Mcp) => return None,
            (true, Framing::Lsp) => serde_json::json!({
                "jsonrpc": "2.0",
                "method": "window/showMessage",
                "params": { "type": 1, "message": format!("weft: {message}") },
            }),
            (false, _) => serde_json::json!({
                "jsonrpc": "2.0",
                "id": self.id.clone().unwrap_or(Value::Null),
                "error": { "code": -32600, "message": message },
            }),
        };
        serde_json::to_vec(&answer).ok()
    }
}

fn size_text(bytes: u64) -> String {
    if bytes >= 1 << 20 {
        format!("{:.1} MiB", bytes as f64 / f64::from(1 << 20))
    } else {
        format!("{bytes} bytes")
    }
}

/// One line, or what was kept of one too long.
enum Line {
    Whole(Vec<u8>),
    Cut { kept: Vec<u8>, size: u64 },
}

/// Reads up to and including the next `\n` (or the end of the stream),
/// never holding more than `limit` bytes: a longer line keeps its first
/// `keep` bytes and skips the rest. `None` at the end of the stream.
async fn read_line<R: AsyncBufRead + Unpin>(
    reader: &mut R,
    limit: usize,
    keep: usize,
) -> std::io::Result<Option<Line>> {
    let mut line = Vec::new();
    let mut size: u64 = 0;
    let mut cut = false;
    loop {
        let available = reader.fill_buf().await?;
        if available.is_empty() {
            if size == 0 {
                return Ok(None);
            }
            break;
        }
        let newline = memchr::memchr(b'\n', available);
        let take = newline.map_or(available.len(), |at| at + 1);
        size += take as u64;
        if !cut && line.len() + take > limit {
            cut = true;
            line.truncate(keep);
        }
        let room = if cut {
            keep.saturating_sub(line.len())
        } else {
            take
        };
        line.extend_from_slice(&available[..take.min(room)]);
        reader.consume(take);
        if newline.is_some() {
            break;
        }
    }
    Ok(Some(if cut {
        Line::Cut { kept: line, size }
    } else {
        Line::Whole(line)
    }))
}

/// Reads `length` bytes, or fewer when the stream ends first.
async fn read_up_to<R: AsyncBufRead + Unpin>(
    reader: &mut R,
    length: usize,
) -> std::io::Result<Vec<u8>> {
    let mut out = Vec::with_capacity(length.min(1 << 20));
    while out.len() < length {
        let available = reader.fill_buf().await?;
        if available.is_empty() {
            break;
        }
        let take = available.len().min(length - out.len());
        out.extend_from_slice(&available[..take]);
        reader.consume(take);
    }
    Ok(out)
}

/// Skips `length` bytes without holding them.
async fn skip<R: AsyncBufRead + Unpin>(reader: &mut R, mut length: u64) -> std::io::Result<()> {
    while length > 0 {
        let available = reader.fill_buf().await?;
        if available.is_empty() {
            return Err(broken("the stream ended inside a message"));
        }
        let take = (available.len() as u64).min(length) as usize;
        reader.consume(take);
        length -= take as u64;
    }
    Ok(())
}

/// The top-level `id` and `method` of a JSON-RPC message from its first
/// bytes (the rest may be cut off): the object's members are read one by
/// one until one cannot be.
fn id_and_method(bytes: &[u8]) -> (Option<Value>, Option<String>) {
    let (mut id, mut method) = (None, None);
    let skip_ws = |mut at: usize| {
        while bytes.get(at).is_some_and(u8::is_ascii_whitespace) {
            at += 1;
        }
        at
    };
    let mut at = skip_ws(0);
    if bytes.get(at) != Some(&b'{') {
        return (id, method);
    }
    at += 1;
    // One JSON value from `at`, and where it ended.
    fn value<T: serde::de::DeserializeOwned>(bytes: &[u8], at: usize) -> Option<(T, usize)> {
        let mut stream = serde_json::Deserializer::from_slice(bytes.get(at..)?).into_iter::<T>();
        let value = stream.next()?.ok()?;
        Some((value, at + stream.byte_offset()))
    }
    while id.is_none() || method.is_none() {
        let Some((key, next)) = value::<String>(bytes, skip_ws(at)) else {
            break;
        };
        at = skip_ws(next);
        if bytes.get(at) != Some(&b':') {
            break;
        }
        let start = skip_ws(at + 1);
        let end = match key.as_str() {
            "id" => value::<Value>(bytes, start).map(|(v, end)| {
                // Ids are strings or numbers; anything else names no request.
                id = (v.is_string() || v.is_number()).then_some(v);
                end
            }),
            "method" => value::<String>(bytes, start).map(|(m, end)| {
                method = Some(m);
                end
            }),
            _ => value::<serde::de::IgnoredAny>(bytes, start).map(|(_, end)| end),
        };
        let Some(end) = end else { break };
        at = skip_ws(end);
        if bytes.get(at) != Some(&b',') {
            break;
        }
        at += 1;
    }
    (id, method)
}

/// The message a panic carried.
pub fn panic_text(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(text) = payload.downcast_ref::<&str>() {
        text.to_string()
    } else if let Some(text) = payload.downcast_ref::<String>() {
        text.clone()
    } else {
        "a panic without a message".to_string()
    }
}

/// Panics when `WEFT_FAULT_PANIC` (a comma-separated list, read once)
/// names `point`: how the end-to-end tests make one request fail inside
/// the real binary, to check that only that request fails. Points are LSP
/// methods (`textDocument/hover`), MCP methods and tools
/// (`tools/call:read_note`) and queries (`query:backlinks`).
pub fn fault_point(point: &str) {
    static POINTS: std::sync::LazyLock<Vec<String>> = std::sync::LazyLock::new(|| {
        std::env::var("WEFT_FAULT_PANIC")
            .map(|v| v.split(',').map(|p| p.trim().to_string()).collect())
            .unwrap_or_default()
    });
    if POINTS.iter().any(|p| p == point) {
        panic!("WEFT_FAULT_PANIC: a fault injected at `{point}`");
    }
}

fn broken(what: &str) -> std::io::Error {
    std::io::Error::new(std::io::ErrorKind::InvalidData, what.to_string())
}

/// Runs a session (`serve`, given the ends of two pipes: what it reads,
/// what it writes) behind the size guard: the client's messages reach it
/// whole, within [`Framing::client_limit`] and shaped as JSON-RPC
/// messages; one too large ([`TooLarge::answer`]) or malformed
/// ([`Malformed::answer`]) is answered here and never reaches it. Returns what the
/// session returned, once it has ended and its output is written.
pub async fn guarded<I, O, F, Fut>(framing: Framing, input: I, output: O, serve: F) -> Fut::Output
where
    I: AsyncRead + Unpin,
    O: AsyncWrite + Unpin,
    F: FnOnce(DuplexStream, DuplexStream) -> Fut,
    Fut: Future,
{
    let (mut to_server, server_in) = tokio::io::duplex(1 << 16);
    let (server_out, from_server) = tokio::io::duplex(1 << 16);
    // Everything for the client, whole messages in order: the server's
    // and the guard's own answers.
    let (out_tx, mut out_rx) = mpsc::channel::<Vec<u8>>(16);
    let answers = out_tx.clone();
    let session = async {
        let server = serve(server_in, server_out);
        let inbound = async move {
            let mut input = BufReader::new(input);
            let limit = framing.client_limit();
            loop {
                match framing.read_frame(&mut input, limit).await {
                    Ok(Some(Frame::Message(body))) => {
                        if let Err(malformed) = check(&body) {
                            tracing::warn!("a client's message refused: {}", malformed.describe());
                            if let Some(answer) = malformed.answer()
                                && answers.send(answer).await.is_err()
                            {
                                break;
                            }
                            continue;
                        }
                        if framing.write(&mut to_server, &body).await.is_err() {
                            break;
                        }
                    }
                    Ok(Some(Frame::TooLarge(too_large))) => {
                        tracing::warn!("{}", too_large.describe());
                        if let Some(answer) = too_large.answer()
                            && answers.send(answer).await.is_err()
                        {
                            break;
                        }
                    }
                    Ok(None) => break,
                    Err(error) => {
                        tracing::warn!("a client's stream broke its framing: {error}");
                        break;
                    }
                }
            }
            // Dropping the pipe tells the server its client is done.
        };
        tokio::pin!(server, inbound);
        let mut inbound_done = false;
        loop {
            tokio::select! {
                out = &mut server => break out,
                () = &mut inbound, if !inbound_done => inbound_done = true,
            }
        }
    };
    let from_server = async move {
        let mut from_server = BufReader::new(from_server);
        while let Ok(Some(body)) = framing.read(&mut from_server, MAX_SERVER_MESSAGE).await {
            if out_tx.send(body).await.is_err() {
                break;
            }
        }
    };
    let to_client = async move {
        let mut output = output;
        while let Some(body) = out_rx.recv().await {
            if framing.write(&mut output, &body).await.is_err() {
                break;
            }
        }
        let _ = output.shutdown().await;
    };
    let (out, (), ()) = tokio::join!(session, from_server, to_client);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn all(framing: Framing, bytes: &[u8], limit: usize) -> std::io::Result<Vec<String>> {
        let mut reader = tokio::io::BufReader::with_capacity(3, bytes);
        let mut out = Vec::new();
        while let Some(frame) = framing.read_frame(&mut reader, limit).await? {
            out.push(match frame {
                Frame::Message(body) => String::from_utf8(body).unwrap(),
                Frame::TooLarge(t) => format!("too large: {} {:?} {:?}", t.size, t.id, t.method),
            });
        }
        Ok(out)
    }

    #[tokio::test]
    async fn lsp_frames_split_anywhere_and_back_to_back() {
        let bytes =
            b"Content-Length: 2\r\n\r\n{}content-length:  7\r\nContent-Type: x\r\n\r\n[1,2,3]";
        assert_eq!(
            all(Framing::Lsp, bytes, 100).await.unwrap(),
            ["{}", "[1,2,3]"]
        );
        let mut written = Vec::new();
        Framing::Lsp
            .write(&mut written, b"{\"a\":1}")
            .await
            .unwrap();
        assert_eq!(
            all(Framing::Lsp, &written, 100).await.unwrap(),
            ["{\"a\":1}"]
        );
    }

    /// Small messages go out in one write, large ones in pieces: both read
    /// back the same, in either framing.
    #[tokio::test]
    async fn written_frames_read_back_small_and_large() {
        let large = format!("\"{}\"", "x".repeat(ONE_WRITE_UP_TO + 10));
        for framing in [Framing::Lsp, Framing::Mcp] {
            let mut written = Vec::new();
            for body in ["[1]", large.as_str(), "[2]"] {
                framing.write(&mut written, body.as_bytes()).await.unwrap();
            }
            let read = all(framing, &written, 4 << 20).await.unwrap();
            assert_eq!(read, ["[1]", large.as_str(), "[2]"], "{framing:?}");
        }
    }

    #[tokio::test]
    async fn broken_lsp_frames_are_errors_not_panics() {
        for bytes in [
            &b"Content-Length: x\r\n\r\n"[..],
            b"Content-Length: 10\r\n\r\n{}",
            b"Content-Length: 2\r\n",
            b"Content-Length: 99999999999999999999999\r\n\r\n",
        ] {
            assert!(all(Framing::Lsp, bytes, 100).await.is_err());
        }
        // A header line without end is not held whole.
        let endless = vec![b'x'; MAX_HEADER_LINE * 4];
        assert!(all(Framing::Lsp, &endless, 100).await.is_err());
    }

    #[tokio::test]
    async fn mcp_lines_skip_blanks() {
        let bytes = b"{\"a\":1}\n\n  \r\n{\"b\":2}\r\n{\"c\":3}";
        assert_eq!(
            all(Framing::Mcp, bytes, 100).await.unwrap(),
            ["{\"a\":1}", "{\"b\":2}", "{\"c\":3}"]
        );
    }

    /// Regression: an MCP line had no length cap, so one client could make
    /// the daemon of a vault hold any amount of memory.
    #[tokio::test]
    async fn oversized_messages_are_skipped_with_their_id() {
        let big = "x".repeat(5000);
        let line = format!(
            "{{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\",\"params\":{{\"t\":\"{big}\"}}}}\n{{\"id\":8}}\n"
        );
        assert_eq!(
            all(Framing::Mcp, line.as_bytes(), 1000).await.unwrap(),
            [
                format!(
                    "too large: {} Some(Number(7)) Some(\"tools/call\")",
                    line.find('\n').unwrap() + 1
                ),
                "{\"id\":8}".to_string()
            ]
        );
        let body = format!("{{\"method\":\"textDocument/didChange\",\"params\":\"{big}\"}}");
        let frames = format!(
            "Content-Length: {}\r\n\r\n{body}Content-Length: 2\r\n\r\n{{}}",
            body.len()
        );
        assert_eq!(
            all(Framing::Lsp, frames.as_bytes(), 1000).await.unwrap(),
            [
                format!(
                    "too large: {} None Some(\"textDocument/didChange\")",
                    body.len()
                ),
                "{}".to_string()
            ]
        );
    }

    /// Regression (issue 21): the LSP library ended its whole session at
    /// the first message it could not decode, and the MCP library answered
    /// one without its id. The guard answers each such message itself, and
    /// the session gets every good message after it.
    #[tokio::test]
    async fn malformed_messages_are_answered_by_the_guard_and_the_session_goes_on() {
        for framing in [Framing::Lsp, Framing::Mcp] {
            let (client, server_side) = tokio::io::duplex(1 << 16);
            let (read, write) = tokio::io::split(server_side);
            // The session echoes what it gets, and says how many it got.
            let session = tokio::spawn(guarded(
                framing,
                read,
                write,
                move |input, mut output| async move {
                    let mut input = BufReader::new(input);
                    let mut got = 0;
                    while let Ok(Some(body)) = framing.read(&mut input, usize::MAX).await {
                        got += 1;
                        framing.write(&mut output, &body).await.unwrap();
                    }
                    got
                },
            ));
            let (client_read, mut client_write) = tokio::io::split(client);
            for body in [
                "{not json",
                r#"[{"jsonrpc":"2.0","id":1,"method":"m"}]"#,
                r#"{"jsonrpc":"2.0","id":{"a":1},"method":"m"}"#,
                r#"{"jsonrpc":"2.0","id":2,"method":3}"#,
                r#"{"jsonrpc":"2.0","id":3,"method":"m","params":"x"}"#,
                r#"{"jsonrpc":"2.0","method":"n","params":"x"}"#,
                r#"{"jsonrpc":"2.0","id":4,"method":"good"}"#,
            ] {
                framing
                    .write(&mut client_write, body.as_bytes())
                    .await
                    .unwrap();
            }
            client_write.shutdown().await.unwrap();
            let mut client_read = BufReader::new(client_read);
            let mut answers = Vec::new();
            while let Some(body) = framing.read(&mut client_read, usize::MAX).await.unwrap() {
                let answer: Value = serde_json::from_slice(&body).unwrap();
                answers.push((
                    answer["id"].clone(),
                    answer["error"]["code"].clone(),
                    answer["method"].clone(),
                ));
            }
            let null = Value::Null;
            assert_eq!(
                answers,
                [
                    (null.clone(), (-32700).into(), null.clone()),
                    (null.clone(), (-32600).into(), null.clone()),
                    (null.clone(), (-32600).into(), null.clone()),
                    (2.into(), (-32600).into(), null.clone()),
                    (3.into(), (-32602).into(), null.clone()),
                    (4.into(), null.clone(), "good".into()),
                ],
                "{framing:?}"
            );
            assert_eq!(session.await.unwrap(), 1, "{framing:?}");
        }
    }

    #[test]
    fn ids_and_methods_from_the_first_bytes() {
        let cases: [(&[u8], Option<Value>, Option<&str>); 6] = [
            (
                br#"{"jsonrpc":"2.0","id":"a\"b","method":"x","params":{"#,
                Some("a\"b".into()),
                Some("x"),
            ),
            (
                br#" { "params" : [1, {"k": "}"}], "id" : 12 , "method": "m""#,
                Some(12.into()),
                Some("m"),
            ),
            (
                br#"{"method":"initialized","params":{"a":"#,
                None,
                Some("initialized"),
            ),
            (br#"{"id":{"no":1},"method":"m"}"#, None, Some("m")),
            (b"[1,2", None, None),
            (b"", None, None),
        ];
        for (bytes, id, method) in cases {
            let (got_id, got_method) = id_and_method(bytes);
            assert_eq!(
                (got_id, got_method.as_deref()),
                (id, method),
                "{}",
                String::from_utf8_lossy(bytes)
            );
        }
    }

    #[test]
    fn answers_name_the_request_or_tell_the_user() {
        let request = TooLarge {
            framing: Framing::Mcp,
            size: 20 << 20,
            limit: MAX_MCP_MESSAGE,
            id: Some(3.into()),
            method: Some("tools/call".into()),
        };
        let answer: Value = serde_json::from_slice(&request.answer().unwrap()).unwrap();
        assert_eq!(answer["id"], 3);
        assert_eq!(answer["error"]["code"], -32600);
        let message = answer["error"]["message"].as_str().unwrap();
        assert!(
            message.contains("20.0 MiB") && message.contains("16.0 MiB"),
            "{message}"
        );
        let notification = TooLarge {
            framing: Framing::Lsp,
            id: None,
            method: Some("textDocument/didChange".into()),
            ..request.clone()
        };
        let shown: Value = serde_json::from_slice(&notification.answer().unwrap()).unwrap();
        assert_eq!(shown["method"], "window/showMessage");
        assert!(
            TooLarge {
                framing: Framing::Mcp,
                ..notification.clone()
            }
            .answer()
            .is_none()
        );
        let unknown = TooLarge {
            id: None,
            method: None,
            ..request
        };
        let answer: Value = serde_json::from_slice(&unknown.answer().unwrap()).unwrap();
        assert_eq!(answer["id"], Value::Null);
    }
}
