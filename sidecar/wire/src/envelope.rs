//! Whether a framed message is a JSON-RPC 2.0 message a session can take
//! ([`check`]): one JSON object with `"jsonrpc": "2.0"`, a string `method`
//! (a request or notification) or an `id` with exactly one of `result` and
//! `error` (a response); ids strings or integers; `params` an object or an
//! array. Anything else is answered where it is read ([`Malformed::answer`])
//! and never reaches a session: the LSP library ends its whole session at
//! the first message it cannot decode, and the MCP library answers one
//! without the request's id, so the client would wait for ever.
//!
//! Read without building the message: a whole buffer in `didOpen` is
//! skipped over, not copied. Knows no method.

use std::fmt;

use serde::Deserialize;
use serde::de::{Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::Value;

/// JSON-RPC's "Parse error": not JSON at all.
pub const PARSE_ERROR: i64 = -32700;
/// JSON-RPC's "Invalid Request": JSON, but not a JSON-RPC message.
pub const INVALID_REQUEST: i64 = -32600;
/// JSON-RPC's "Invalid params": `params` neither an object nor an array.
pub const INVALID_PARAMS: i64 = -32602;

/// A message refused for its shape.
#[derive(Debug, Clone, PartialEq)]
pub struct Malformed {
    /// [`PARSE_ERROR`], [`INVALID_REQUEST`] or [`INVALID_PARAMS`].
    pub code: i64,
    /// What was wrong, for the answer and the log.
    pub reason: String,
    /// The request's id, when it has a usable one.
    pub id: Option<Value>,
    /// A notification (a method, no id): nothing is answered.
    pub notification: bool,
}

impl Malformed {
    /// A sentence for logs and answers.
    pub fn describe(&self) -> String {
        let what = match self.code {
            PARSE_ERROR => "Parse error",
            INVALID_PARAMS => "Invalid params",
            _ => "Invalid request",
        };
        format!(
            "{what}: {}; Weft did nothing with this message",
            self.reason
        )
    }

    /// The error answer (with the request's id, else `null`); `None` for
    /// a notification.
    pub fn answer(&self) -> Option<Vec<u8>> {
        if self.notification {
            return None;
        }
        let answer = serde_json::json!({
            "jsonrpc": "2.0",
            "id": self.id.clone().unwrap_or(Value::Null),
            "error": { "code": self.code, "message": format!("{}.", self.describe()) },
        });
        serde_json::to_vec(&answer).ok()
    }
}

/// `Ok` for a message a session can take; else why not, and what to answer.
pub fn check(body: &[u8]) -> Result<(), Malformed> {
    let refuse = |code: i64, reason: String, id: Option<Value>| Malformed {
        code,
        reason,
        id,
        notification: false,
    };
    let Ok(text) = std::str::from_utf8(body) else {
        return Err(refuse(PARSE_ERROR, "the message is not UTF-8".into(), None));
    };
    let envelope: Envelope = match serde_json::from_str(text) {
        Ok(envelope) => envelope,
        Err(error) => {
            // JSON of another shape, or no JSON at all?
            return Err(match serde_json::from_str::<IgnoredAny>(text) {
                Err(error) => refuse(
                    PARSE_ERROR,
                    format!("the message is not JSON ({error})"),
                    None,
                ),
                Ok(_) if text.trim_start().starts_with('[') => refuse(
                    INVALID_REQUEST,
                    "batches (arrays of messages) are not taken: send each message on its own"
                        .into(),
                    None,
                ),
                Ok(_) => refuse(
                    INVALID_REQUEST,
                    format!("the message is not a JSON-RPC message ({error})"),
                    None,
                ),
            });
        }
    };
    let id = match &envelope.id {
        None => None,
        Some(id @ Value::String(_)) => Some(id.clone()),
        Some(id @ Value::Number(n)) if n.as_i64().is_some() => Some(id.clone()),
        Some(other) => {
            return Err(refuse(
                INVALID_REQUEST,
                format!(
                    "`id` must be a string or an integer, not `{}`",
                    shown(other)
                ),
                None,
            ));
        }
    };
    if envelope.jsonrpc.as_deref() != Some("2.0") {
        return Err(refuse(
            INVALID_REQUEST,
            "`jsonrpc` must be \"2.0\"".into(),
            id,
        ));
    }
    match &envelope.method {
        Some(Value::String(_)) => {
            if envelope.params == Some(Params::Plain) {
                return Err(Malformed {
                    code: INVALID_PARAMS,
                    reason: "`params` must be an object or an array".into(),
                    notification: id.is_none(),
                    id,
                });
            }
            Ok(())
        }
        Some(other) => Err(refuse(
            INVALID_REQUEST,
            format!("`method` must be a string, not `{}`", shown(other)),
            id,
        )),
        None => {
            // A response to one of the server's requests.
            let Some(id) = id else {
                return Err(refuse(
                    INVALID_REQUEST,
                    "a message needs a `method` (a request or notification) or an `id` (a \
                     response)"
                        .into(),
                    None,
                ));
            };
            match (envelope.result.is_some(), &envelope.error) {
                (true, None) => Ok(()),
                (false, Some(error)) if error_shape(error) => Ok(()),
                (false, Some(_)) => Err(refuse(
                    INVALID_REQUEST,
                    "a response's `error` must be an object with an integer `code` and a string \
                     `message`"
                        .into(),
                    Some(id),
                )),
                _ => Err(refuse(
                    INVALID_REQUEST,
                    "a response needs exactly one of `result` and `error`".into(),
                    Some(id),
                )),
            }
        }
    }
}

fn error_shape(error: &Value) -> bool {
    error["code"]
        .as_i64()
        .is_some_and(|c| i32::try_from(c).is_ok())
        && error["message"].is_string()
}

/// A value as the client sent it, cut short.
fn shown(value: &Value) -> String {
    let text = value.to_string();
    match text.char_indices().nth(40) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text,
    }
}

/// The members that tell a message's shape; the rest is skipped unread.
#[derive(Deserialize)]
struct Envelope {
    jsonrpc: Option<String>,
    #[serde(default)]
    method: Option<Value>,
    /// `Some(Null)` for `"id": null`, `None` when absent.
    #[serde(default, deserialize_with = "present")]
    id: Option<Value>,
    #[serde(default)]
    params: Option<Params>,
    /// Present (even as `null`) or not.
    #[serde(default, deserialize_with = "present")]
    result: Option<Present>,
    #[serde(default)]
    error: Option<Value>,
}

fn present<'de, D, T>(deserializer: D) -> Result<Option<T>, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de>,
{
    T::deserialize(deserializer).map(Some)
}

/// Any value, skipped but walked, so that the parser's depth limit holds
/// as it does for the session that parses it ([`IgnoredAny`] has none).
struct Present;

impl<'de> Deserialize<'de> for Present {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Walk;
        impl<'de> Visitor<'de> for Walk {
            type Value = Present;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Present, A::Error> {
                while map.next_entry::<IgnoredAny, Present>()?.is_some() {}
                Ok(Present)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Present, A::Error> {
                while seq.next_element::<Present>()?.is_some() {}
                Ok(Present)
            }
            fn visit_unit<E>(self) -> Result<Present, E> {
                Ok(Present)
            }
            fn visit_bool<E>(self, _: bool) -> Result<Present, E> {
                Ok(Present)
            }
            fn visit_i64<E>(self, _: i64) -> Result<Present, E> {
                Ok(Present)
            }
            fn visit_u64<E>(self, _: u64) -> Result<Present, E> {
                Ok(Present)
            }
            fn visit_f64<E>(self, _: f64) -> Result<Present, E> {
                Ok(Present)
            }
            fn visit_str<E>(self, _: &str) -> Result<Present, E> {
                Ok(Present)
            }
        }
        deserializer.deserialize_any(Walk)
    }
}

/// What `params` is, read without keeping it: structured (an object or an
/// array; `null` counts as absent) or a plain value.
#[derive(Debug, PartialEq)]
enum Params {
    Structured,
    Plain,
}

impl<'de> Deserialize<'de> for Params {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Shape;
        impl<'de> Visitor<'de> for Shape {
            type Value = Params;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Params, A::Error> {
                while map.next_entry::<IgnoredAny, Present>()?.is_some() {}
                Ok(Params::Structured)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Params, A::Error> {
                while seq.next_element::<Present>()?.is_some() {}
                Ok(Params::Structured)
            }
            fn visit_unit<E>(self) -> Result<Params, E> {
                Ok(Params::Structured)
            }
            fn visit_bool<E>(self, _: bool) -> Result<Params, E> {
                Ok(Params::Plain)
            }
            fn visit_i64<E>(self, _: i64) -> Result<Params, E> {
                Ok(Params::Plain)
            }
            fn visit_u64<E>(self, _: u64) -> Result<Params, E> {
                Ok(Params::Plain)
            }
            fn visit_f64<E>(self, _: f64) -> Result<Params, E> {
                Ok(Params::Plain)
            }
            fn visit_str<E>(self, _: &str) -> Result<Params, E> {
                Ok(Params::Plain)
            }
        }
        deserializer.deserialize_any(Shape)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn verdict(body: &str) -> Result<(), (i64, Option<Value>, bool)> {
        check(body.as_bytes()).map_err(|m| (m.code, m.id, m.notification))
    }

    #[test]
    fn json_rpc_messages_pass() {
        for ok in [
            r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"a":[1]}}"#,
            r#"{"jsonrpc":"2.0","id":"x","method":"shutdown","params":null}"#,
            r#"{"jsonrpc":"2.0","id":-3,"method":"m","params":[1,2]}"#,
            r#"{"jsonrpc":"2.0","method":"initialized"}"#,
            r#"{"jsonrpc":"2.0","id":4,"result":null}"#,
            r#"{"jsonrpc":"2.0","id":"s","result":{"k":"v"},"extra":true}"#,
            r#"{"jsonrpc":"2.0","id":5,"error":{"code":-32601,"message":"no","data":[1]}}"#,
            " {\"jsonrpc\":\"2.0\",\"method\":\"x\",\"params\":{\"text\":\"a\\\"b\"}}\n",
        ] {
            assert_eq!(verdict(ok), Ok(()), "{ok}");
        }
    }

    #[test]
    fn anything_else_is_refused_with_the_id_when_there_is_one() {
        let id = |n: i64| Some(Value::from(n));
        for (body, expected) in [
            ("{not json", (PARSE_ERROR, None, false)),
            (
                r#"{"jsonrpc":"2.0","id":1,"method":"m""#,
                (PARSE_ERROR, None, false),
            ),
            ("", (PARSE_ERROR, None, false)),
            (
                r#"[{"jsonrpc":"2.0","id":1,"method":"m"}]"#,
                (INVALID_REQUEST, None, false),
            ),
            (r#""hello""#, (INVALID_REQUEST, None, false)),
            ("null", (INVALID_REQUEST, None, false)),
            (
                r#"{"jsonrpc":"2.0","id":{"a":1},"method":"m"}"#,
                (INVALID_REQUEST, None, false),
            ),
            (
                r#"{"jsonrpc":"2.0","id":true,"method":"m"}"#,
                (INVALID_REQUEST, None, false),
            ),
            (
                r#"{"jsonrpc":"2.0","id":1.5,"method":"m"}"#,
                (INVALID_REQUEST, None, false),
            ),
            (
                r#"{"jsonrpc":"2.0","id":null,"method":"m"}"#,
                (INVALID_REQUEST, None, false),
            ),
            (
                r#"{"jsonrpc":"2.0","id":7,"method":5}"#,
                (INVALID_REQUEST, id(7), false),
            ),
            (r#"{"id":8,"method":"m"}"#, (INVALID_REQUEST, id(8), false)),
            (
                r#"{"jsonrpc":"1.0","id":9,"method":"m"}"#,
                (INVALID_REQUEST, id(9), false),
            ),
            (
                r#"{"jsonrpc":"2.0","id":10,"method":"m","params":"x"}"#,
                (INVALID_PARAMS, id(10), false),
            ),
            (
                r#"{"jsonrpc":"2.0","method":"m","params":3}"#,
                (INVALID_PARAMS, None, true),
            ),
            (r#"{"jsonrpc":"2.0"}"#, (INVALID_REQUEST, None, false)),
            (
                r#"{"jsonrpc":"2.0","id":11}"#,
                (INVALID_REQUEST, id(11), false),
            ),
            (
                r#"{"jsonrpc":"2.0","id":12,"result":1,"error":{"code":1,"message":"m"}}"#,
                (INVALID_REQUEST, id(12), false),
            ),
            (
                r#"{"jsonrpc":"2.0","id":13,"error":"bad"}"#,
                (INVALID_REQUEST, id(13), false),
            ),
            (
                r#"{"jsonrpc":"2.0","id":14,"method":"m","id":15}"#,
                (INVALID_REQUEST, None, false),
            ),
        ] {
            assert_eq!(verdict(body), Err(expected), "{body}");
        }
        // Not UTF-8: refused, not a panic.
        assert_eq!(check(b"{\"a\":\"\xff\"}").unwrap_err().code, PARSE_ERROR);
        // Nested deeper than the sessions' parser goes (it would end the
        // LSP session), anywhere it parses: refused.
        let nest = |n: usize| format!("{}{}", "[".repeat(n), "]".repeat(n));
        for member in ["params", "result"] {
            let deep = format!(
                r#"{{"jsonrpc":"2.0","id":1,"method":"m","{member}":{}}}"#,
                nest(200)
            );
            let deep = deep.replace(r#""method":"m","result""#, r#""result""#);
            assert_eq!(
                check(deep.as_bytes()).unwrap_err().code,
                INVALID_REQUEST,
                "{member}"
            );
            let shallow = deep.replace(&nest(200), &nest(100));
            assert_eq!(check(shallow.as_bytes()), Ok(()), "{member}");
        }
        let deep = nest(10_000);
        assert_eq!(check(deep.as_bytes()).unwrap_err().code, INVALID_REQUEST);
    }

    #[test]
    fn answers_carry_the_code_and_id_and_notifications_get_none() {
        let refused =
            check(br#"{"jsonrpc":"2.0","id":"r","method":"m","params":true}"#).unwrap_err();
        let answer: Value = serde_json::from_slice(&refused.answer().unwrap()).unwrap();
        assert_eq!(answer["id"], "r");
        assert_eq!(answer["error"]["code"], INVALID_PARAMS);
        assert!(
            answer["error"]["message"]
                .as_str()
                .unwrap()
                .contains("`params` must be an object or an array"),
            "{answer}"
        );
        let parse = check(b"{oops").unwrap_err();
        let answer: Value = serde_json::from_slice(&parse.answer().unwrap()).unwrap();
        assert_eq!(answer["id"], Value::Null);
        assert_eq!(answer["error"]["code"], PARSE_ERROR);
        let notification = check(br#"{"jsonrpc":"2.0","method":"m","params":1}"#).unwrap_err();
        assert_eq!(notification.answer(), None);
    }
}
