//! `wire_framing`: the daemon's framing (`wire`) reading any byte stream,
//! LSP or MCP, under a small size limit and a small read buffer (so frames
//! are split anywhere). Every read ends the stream, breaks it with an
//! error, gives a message within the limit or skips one over it with its
//! size; a message read writes and reads back the same; a skipped one's
//! answer is JSON. Reading never waits and never loops without reading.

use std::future::Future;
use std::pin::pin;
use std::task::{Context, Poll, Waker};

use tokio::io::BufReader;
use weft_wire::{Frame, Framing};

/// The limits a stream is read under: the first byte picks one.
const LIMITS: [usize; 4] = [8, 64, 1024, 64 << 10];

pub fn wire_framing(data: &[u8]) {
    let Some((&knobs, stream)) = data.split_first() else {
        return;
    };
    let framing = if knobs & 1 == 0 {
        Framing::Lsp
    } else {
        Framing::Mcp
    };
    let limit = LIMITS[usize::from(knobs >> 1) % LIMITS.len()];
    let capacity = 1 + usize::from(knobs >> 3);
    let mut reader = BufReader::with_capacity(capacity, stream);
    for _ in 0..=stream.len() {
        match now(framing.read_frame(&mut reader, limit)) {
            Ok(None) => return,
            Err(error) => {
                assert!(!error.to_string().is_empty(), "an error without a message");
                return;
            }
            Ok(Some(Frame::Message(body))) => {
                assert!(
                    body.len() <= limit,
                    "a message of {} bytes over the limit {limit}",
                    body.len()
                );
                if framing == Framing::Mcp {
                    assert!(
                        !body.is_empty() && body == body.trim_ascii() && !body.contains(&b'\n'),
                        "an MCP message that is not one trimmed line: {body:?}"
                    );
                }
                let mut written = Vec::new();
                now(framing.write(&mut written, &body)).expect("writing to memory");
                let mut again = BufReader::with_capacity(capacity, &written[..]);
                let limit = framing.client_limit();
                match now(framing.read_frame(&mut again, limit)) {
                    Ok(Some(Frame::Message(back))) => {
                        assert!(back == body, "a message written reads back otherwise")
                    }
                    other => panic!("a message written reads back as {other:?}"),
                }
                assert!(
                    matches!(now(framing.read_frame(&mut again, limit)), Ok(None)),
                    "more after one message"
                );
            }
            Ok(Some(Frame::TooLarge(skipped))) => {
                assert!(
                    skipped.size > limit as u64 && skipped.limit == limit,
                    "{skipped:?} under {limit}"
                );
                assert!(
                    !skipped.describe().is_empty(),
                    "a refusal without a sentence"
                );
                if let Some(answer) = skipped.answer() {
                    serde_json::from_slice::<serde_json::Value>(&answer)
                        .expect("the answer is JSON");
                }
            }
        }
    }
    panic!("more frames than bytes: a read that reads nothing");
}

/// The output of a future that never waits: reading and writing memory.
fn now<F: Future>(future: F) -> F::Output {
    let mut context = Context::from_waker(Waker::noop());
    match pin!(future).poll(&mut context) {
        Poll::Ready(output) => output,
        Poll::Pending => panic!("reading or writing memory waited"),
    }
}
