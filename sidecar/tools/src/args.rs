//! Lenient reading of what agents actually send as tool arguments (`"10"`
//! for 10, `"a,b"` for a list, `Full` for `full`), and string choices that
//! say the accepted values when they fail. Schemas are the MCP adapter's
//! (`mcp::schema`); these only read.

use serde::Deserialize;
use serde::de::{self, Deserializer};
use serde_json::Value;

/// Lenient deserializers for optional parameters.
pub mod lenient {
    use super::*;

    fn number(value: &Value) -> Option<f64> {
        match value {
            Value::Number(n) => n.as_f64(),
            Value::String(s) => s.trim().parse().ok(),
            _ => None,
        }
    }

    /// A count: `10`, `10.0` or `"10"`.
    pub fn usize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<usize>, D::Error> {
        let value = Option::<Value>::deserialize(d)?;
        match value {
            None | Some(Value::Null) => Ok(None),
            Some(v) => match number(&v) {
                Some(n) if n >= 0.0 && n.fract() == 0.0 && n <= u32::MAX as f64 => {
                    Ok(Some(n as usize))
                }
                _ => Err(de::Error::custom(format!(
                    "expected a whole number of 0 or more, found {v}"
                ))),
            },
        }
    }

    /// A small count (depths, windows).
    pub fn u32<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u32>, D::Error> {
        usize(d).map(|n| n.map(|n| n.min(u32::MAX as usize) as u32))
    }

    /// `true`, `"true"`, `"yes"`, `1`.
    pub fn bool<'de, D: Deserializer<'de>>(d: D) -> Result<Option<bool>, D::Error> {
        let value = Option::<Value>::deserialize(d)?;
        match value {
            None | Some(Value::Null) => Ok(None),
            Some(Value::Bool(b)) => Ok(Some(b)),
            Some(v) => {
                let text = match &v {
                    Value::String(s) => s.trim().to_lowercase(),
                    Value::Number(n) => n.to_string(),
                    _ => String::new(),
                };
                match text.as_str() {
                    "true" | "yes" | "1" | "on" => Ok(Some(true)),
                    "false" | "no" | "0" | "off" => Ok(Some(false)),
                    _ => Err(de::Error::custom(format!(
                        "expected true or false, found {v}"
                    ))),
                }
            }
        }
    }

    /// A list of strings: `["a", "b"]`, or one string (`"a"`, `"a, b"`).
    pub fn strings<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Vec<String>>, D::Error> {
        let value = Option::<Value>::deserialize(d)?;
        match value {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(
                s.split(',')
                    .map(str::trim)
                    .filter(|s| !s.is_empty())
                    .map(str::to_string)
                    .collect(),
            )),
            Some(Value::Array(items)) => items
                .into_iter()
                .map(|v| match v {
                    Value::String(s) => Ok(s),
                    Value::Number(n) => Ok(n.to_string()),
                    other => Err(de::Error::custom(format!(
                        "expected a list of strings, found {other}"
                    ))),
                })
                .collect::<Result<Vec<_>, _>>()
                .map(Some),
            Some(other) => Err(de::Error::custom(format!(
                "expected a list of strings, found {other}"
            ))),
        }
    }
}

/// A string choice that accepts any case and a few aliases, and says the
/// accepted values when it fails. Its schema is a plain string `enum`.
#[macro_export]
macro_rules! choice {
    ($(#[$m:meta])* $vis:vis enum $name:ident { $($variant:ident = $text:literal $(| $alias:literal)*),+ $(,)? }) => {
        $(#[$m])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, schemars::JsonSchema, serde::Serialize)]
        $vis enum $name {
            $(#[serde(rename = $text)] $variant),+
        }

        impl $name {
            #[allow(dead_code)]
            pub(crate) const VALUES: &'static [&'static str] = &[$($text),+];

            #[allow(dead_code)]
            pub(crate) const ALL: &'static [Self] = &[$($name::$variant),+];

            #[allow(dead_code)]
            pub fn as_str(self) -> &'static str {
                match self { $($name::$variant => $text),+ }
            }
        }

        impl<'de> serde::Deserialize<'de> for $name {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let s = String::deserialize(d)?;
                let k = s.trim().to_lowercase().replace('-', "_");
                $( if k == $text $(|| k == $alias)* { return Ok($name::$variant); } )+
                Err(serde::de::Error::custom(format!(
                    "`{s}` is not accepted; expected one of: {}",
                    [$($text),+].join(", ")
                )))
            }
        }
    };
}

pub(crate) use crate::choice;

/// Arguments read the lenient way, for the tests of this module and of the
/// MCP adapter's schemas (one fixture for both).
#[cfg(any(test, feature = "test-support"))]
#[doc(hidden)]
pub mod fixture {
    use schemars::JsonSchema;
    use serde::Deserialize;

    use super::lenient;

    choice! {
        pub enum View { Full = "full", Body = "body" | "content" }
    }

    #[derive(Deserialize, JsonSchema)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    pub struct Args {
        /// The note.
        #[serde(alias = "note")]
        pub path: String,
        /// How much.
        #[serde(default, deserialize_with = "lenient::usize")]
        pub limit: Option<usize>,
        /// Which.
        pub view: Option<View>,
        /// Tags.
        #[serde(default, deserialize_with = "lenient::strings")]
        pub tags: Option<Vec<String>>,
    }
}

#[cfg(test)]
mod tests {
    use super::fixture::{Args, View};

    #[test]
    fn lenient_values() {
        let a: Args =
            serde_json::from_str(r#"{"note":"x","limit":"5","view":"Content","tags":"a, b"}"#)
                .unwrap();
        assert_eq!(
            (a.limit, a.view, a.tags),
            (
                Some(5),
                Some(View::Body),
                Some(vec!["a".into(), "b".into()])
            )
        );
        let e = serde_json::from_str::<Args>(r#"{"path":"x","view":"all"}"#)
            .err()
            .unwrap();
        assert!(e.to_string().contains("expected one of: full, body"), "{e}");
        let e = serde_json::from_str::<Args>(r#"{"path":"x","limit":-1}"#)
            .err()
            .unwrap();
        assert!(e.to_string().contains("whole number"), "{e}");
        let e = serde_json::from_str::<Args>(r#"{"file":"x"}"#)
            .err()
            .unwrap();
        assert!(e.to_string().contains("unknown field `file`"), "{e}");
    }
}
