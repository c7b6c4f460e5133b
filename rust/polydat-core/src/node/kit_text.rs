//! Kits the core kit file does not have: rules over a byte-string input,
//! rules over a scalar and a string, and a JSON result type. Like the kits
//! in [`super::kit`], each wraps one Rust closure, so a node's rule has one
//! copy; these run on P1 and through the engines' generic (value) path.

use super::by_bytes::{Arg, BytesEval, OutRef, Sink};
use super::kit::{ref_form, Out, Scalar};
use super::{Args, NodeError, NodeEval};
use crate::types::PortType;
use crate::value::Value;
use std::marker::PhantomData;

/// JSON text as a rule result: a `json` output (the text must be valid
/// JSON; rules build it with `serde_json`).
pub struct JsonText(pub String);

impl Out for JsonText {
    const TYPE: PortType = PortType::Json;
    fn into_out(self) -> Result<Value, NodeError> {
        super::limit::shared_str(&self.0).map(Value::Json)
    }
    fn out_ref(&self) -> OutRef<'_> {
        OutRef::Text(&self.0)
    }
}

#[cold]
fn wrong_type(v: &Value, want: &str) -> NodeError {
    NodeError::new(format!("internal: expected {want}, got {v}"))
}

/// The bytes of a wire value: a byte string, or a string's UTF-8 bytes.
#[inline]
fn bytes_arg<'a>(args: &Args<'a>, i: usize) -> Result<&'a [u8], NodeError> {
    match args.get(i) {
        Value::Bytes(b) => Ok(b),
        Value::Str(s) | Value::Json(s) => Ok(s.as_bytes()),
        other => Err(wrong_type(other, "bytes")),
    }
}

/// Kit for a rule over one byte-string input.
pub struct BytesMap<R, F> {
    f: F,
    _t: PhantomData<fn() -> R>,
}

/// Wraps `fn(&[u8]) -> Result<R, String>` as a node (R a scalar, String, bytes or JSON).
pub fn bytes_map<R: Out>(f: impl Fn(&[u8]) -> Result<R, String> + Send + Sync + 'static) -> Box<dyn NodeEval> {
    Box::new(BytesMap { f, _t: PhantomData })
}

impl<R: Out, F: Fn(&[u8]) -> Result<R, String> + Send + Sync> NodeEval for BytesMap<R, F> {
    fn eval(&self, args: &Args<'_>, outs: &mut [Value]) -> Result<(), NodeError> {
        outs[0] = (self.f)(bytes_arg(args, 0)?).map_err(NodeError::new)?.into_out()?;
        super::kit::canonical_value(&mut outs[0]);
        Ok(())
    }
    fn bytes_form(&self) -> Option<&dyn BytesEval> {
        ref_form::<R>(self)
    }
}

impl<R: Out, F: Fn(&[u8]) -> Result<R, String> + Send + Sync> BytesEval for BytesMap<R, F> {
    fn eval_bytes(&self, ins: &[Arg<'_>], out: Sink<'_>) -> Result<(), NodeError> {
        out.put((self.f)(ins[0].bytes()?).map_err(NodeError::new)?.out_ref())
    }
    fn appends(&self) -> bool {
        true
    }
}

/// Kit for a rule over a scalar and a string (`char_buf`-like nodes whose
/// first wire is a number and second a string), fallible.
pub struct ScalarStrMap<A, R, F> {
    f: F,
    _t: PhantomData<fn(A) -> R>,
}

/// Wraps `fn(scalar, &str) -> Result<R, String>` as a node.
pub fn scalar_str_map<A: Scalar, R: Out>(
    f: impl Fn(A, &str) -> Result<R, String> + Send + Sync + 'static,
) -> Box<dyn NodeEval> {
    Box::new(ScalarStrMap { f, _t: PhantomData })
}

impl<A: Scalar, R: Out, F: Fn(A, &str) -> Result<R, String> + Send + Sync> NodeEval for ScalarStrMap<A, R, F> {
    fn eval(&self, args: &Args<'_>, outs: &mut [Value]) -> Result<(), NodeError> {
        let a = A::from_value(args.get(0)).ok_or_else(|| wrong_type(args.get(0), &A::TYPE.keyword()))?;
        let s = args.get(1).as_str().ok_or_else(|| wrong_type(args.get(1), "str"))?;
        outs[0] = (self.f)(a, s).map_err(NodeError::new)?.into_out()?;
        super::kit::canonical_value(&mut outs[0]);
        Ok(())
    }
    fn bytes_form(&self) -> Option<&dyn BytesEval> {
        ref_form::<R>(self)
    }
}

impl<A: Scalar, R: Out, F: Fn(A, &str) -> Result<R, String> + Send + Sync> BytesEval for ScalarStrMap<A, R, F> {
    fn eval_bytes(&self, ins: &[Arg<'_>], out: Sink<'_>) -> Result<(), NodeError> {
        let r = (self.f)(ins[0].scalar::<A>()?, ins[1].text()?).map_err(NodeError::new)?;
        out.put(r.out_ref())
    }
    fn appends(&self) -> bool {
        true
    }
}

/// Kit for a fallible rule over one scalar with a by-reference result
/// (the fallible twin of [`super::kit::to_ref`]: sizes past the value
/// limit, for instance).
pub struct TryToRef<A, R, F> {
    f: F,
    _t: PhantomData<fn(A) -> R>,
}

/// Wraps `fn(scalar) -> Result<String/Vec<u8>/JsonText, String>` as a node.
pub fn try_to_ref<A: Scalar, R: Out>(f: impl Fn(A) -> Result<R, String> + Send + Sync + 'static) -> Box<dyn NodeEval> {
    Box::new(TryToRef { f, _t: PhantomData })
}

impl<A: Scalar, R: Out, F: Fn(A) -> Result<R, String> + Send + Sync> NodeEval for TryToRef<A, R, F> {
    fn eval(&self, args: &Args<'_>, outs: &mut [Value]) -> Result<(), NodeError> {
        let a = A::from_value(args.get(0)).ok_or_else(|| wrong_type(args.get(0), &A::TYPE.keyword()))?;
        outs[0] = (self.f)(a).map_err(NodeError::new)?.into_out()?;
        Ok(())
    }
    fn bytes_form(&self) -> Option<&dyn BytesEval> {
        ref_form::<R>(self)
    }
}

impl<A: Scalar, R: Out, F: Fn(A) -> Result<R, String> + Send + Sync> BytesEval for TryToRef<A, R, F> {
    fn eval_bytes(&self, ins: &[Arg<'_>], out: Sink<'_>) -> Result<(), NodeError> {
        out.put((self.f)(ins[0].scalar::<A>()?).map_err(NodeError::new)?.out_ref())
    }
    fn appends(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[test]
    fn bytes_kit_reads_bytes_and_text() {
        let node = bytes_map(|b: &[u8]| Ok(b.len() as u64));
        let mut out = [Value::None];
        node.eval(&Args::new(&[Value::Bytes(Arc::from(&b"abc"[..]))], &[0]), &mut out).unwrap();
        assert!(out[0].same(&Value::U64(3)));
        node.eval(&Args::new(&[Value::str("é")], &[0]), &mut out).unwrap();
        assert!(out[0].same(&Value::U64(2)));
        assert!(node.eval(&Args::new(&[Value::U64(1)], &[0]), &mut out).is_err());
    }

    #[test]
    fn json_results_are_json_values() {
        let node = try_to_ref(|x: u64| Ok(JsonText(format!("[{x}]"))));
        let mut out = [Value::None];
        node.eval(&Args::new(&[Value::U64(4)], &[0]), &mut out).unwrap();
        assert!(out[0].same(&Value::Json(Arc::from("[4]"))));
    }
}
