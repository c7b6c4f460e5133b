//! The `Program` class: a compiled, immutable program.

use polydat_core::compile::{self, CompileOptions};
use polydat_core::engine::{self, EngineKind};
use polydat_core::ir::GraphIr;
use polydat_core::program::manifest::Manifest;
use polydat_core::scope::bind::Scope;
use polydat_core::Program as CoreProgram;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::sync::Arc;

use crate::arrow;
use crate::convert::{port_type, to_value};
use crate::errors::{contained, HostError, HostResult};
use crate::kernel::Kernel;
use crate::pyvalue::to_py;

/// A compiled, immutable program (thread-safe).
#[pyclass(frozen, module = "polydat._core")]
pub(crate) struct Program {
    pub(crate) inner: Arc<CoreProgram>,
    pub(crate) kind: EngineKind,
}

#[pymethods]
impl Program {
    /// Compiles graph IR (JSON text) for `engine`.
    /// `outer_json` is the manifest of the outer scope the program is compiled
    /// against (auto-extern); `iteration` the iteration variables of an
    /// iteration body, as (name, type keyword); `keep` names that get a
    /// slot from the outer scope even when unread; `strict` refuses implicit
    /// coercions, `strict_names` free names nobody provides.
    #[staticmethod]
    #[pyo3(signature = (ir_json, *, engine="auto", provenance="auto", strict=false, outputs=None, fusion=true, outer_json=None, iteration=Vec::new(), keep=Vec::new(), strict_names=false))]
    #[allow(clippy::too_many_arguments)]
    fn compile(
        py: Python<'_>,
        ir_json: &str,
        engine: &str,
        provenance: &str,
        strict: bool,
        outputs: Option<Vec<String>>,
        fusion: bool,
        outer_json: Option<&str>,
        iteration: Vec<(String, String)>,
        keep: Vec<String>,
        strict_names: bool,
    ) -> PyResult<Program> {
        contained(py, || {
            let ir = GraphIr::from_json(ir_json).map_err(HostError::Internal)?;
            let outer = match outer_json {
                Some(text) => Some(Arc::new(Manifest::from_json(text).map_err(HostError::Internal)?)),
                None => None,
            };
            let iteration =
                iteration.iter().map(|(n, t)| Ok((n.clone(), port_type(t)?))).collect::<HostResult<Vec<_>>>()?;
            let options = CompileOptions {
                strict,
                strict_names,
                outputs,
                fusion,
                outer,
                iteration,
                keep,
                ..CompileOptions::default()
            };
            let built = py.allow_threads(|| compile::build(&ir, engine, provenance, options));
            let (program, kind) = built?;
            Ok(Program { inner: Arc::new(program), kind })
        })
    }

    /// What runs, e.g. `p1`, `p2/pull`.
    #[getter]
    fn engine(&self) -> &'static str {
        self.kind.name()
    }

    /// The P2 provenance analysis (whatever engine runs): total_nodes,
    /// max_output_cone, output_cone_ratio, stable_nodes, stable_ratio, the
    /// mode `provenance="auto"` picks (`choice`) and the rule that decided.
    #[getter]
    fn provenance_analysis<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        contained(py, || {
            let a = &self.inner.selection.analysis;
            let d = PyDict::new(py);
            d.set_item("total_nodes", a.total_nodes)?;
            d.set_item("max_output_cone", a.max_output_cone)?;
            d.set_item("output_cone_ratio", a.output_cone_ratio)?;
            d.set_item("stable_nodes", a.stable_nodes)?;
            d.set_item("stable_ratio", a.stable_ratio)?;
            d.set_item("choice", a.choice.name())?;
            d.set_item("rule", a.rule)?;
            Ok(d)
        })
    }

    /// Inputs as (name, type, kind), coordinates first.
    #[getter]
    fn inputs(&self) -> Vec<(String, String, String)> {
        self.inner
            .inputs
            .iter()
            .map(|i| (i.name.clone(), i.ty.to_string(), format!("{:?}", i.kind).to_lowercase()))
            .collect()
    }

    /// Outputs as (name, type), in declaration order.
    #[getter]
    fn outputs(&self) -> Vec<(String, String)> {
        self.inner.outputs.iter().map(|o| (o.name.clone(), o.ty.to_string())).collect()
    }

    /// Compile events as (kind, message, line, col, severity); severity is
    /// `warning` for what `check` reports, else `info`.
    #[getter]
    fn events(&self) -> Vec<(String, String, u32, u32, &'static str)> {
        self.inner
            .events
            .iter()
            .map(|e| {
                let (l, c) = e.span.map(|s| (s.line, s.col)).unwrap_or((0, 0));
                let severity = if e.kind.is_warning() { "warning" } else { "info" };
                (e.kind.name().to_string(), e.message.clone(), l, c, severity)
            })
            .collect()
    }

    /// Node counts and compile time.
    #[getter]
    fn stats<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        d.set_item("nodes_resolved", self.inner.stats.nodes_resolved)?;
        d.set_item("nodes_final", self.inner.stats.nodes_final)?;
        d.set_item("compile_micros", self.inner.stats.compile_micros)?;
        d.set_item("fusions", self.inner.stats.fusions)?;
        d.set_item("polyfills", self.inner.stats.polyfills)?;
        d.set_item("folded", self.inner.stats.folded)?;
        d.set_item("adapters", self.inner.stats.adapters)?;
        d.set_item("scope_init_steps", self.inner.scope_init_steps.len())?;
        Ok(d)
    }

    /// Everything `explain` shows, as JSON text: passes, lifecycle of every
    /// step and binding, events, engine choice, the resolved graph.
    fn explain_json(&self, py: Python<'_>) -> PyResult<String> {
        contained(py, || {
            let plan = engine::describe(&self.inner, self.kind);
            Ok(polydat_core::program::explain::explain_json(&self.inner, &plan))
        })
    }

    /// A new kernel (one mutable state) over this program: a root scope, or,
    /// with `outer`, a scope bound under that kernel's (`iteration` gives
    /// the iteration variables' values).
    #[pyo3(signature = (outer=None, iteration=Vec::new()))]
    fn kernel(
        &self,
        py: Python<'_>,
        outer: Option<&Kernel>,
        iteration: Vec<(String, Bound<'_, PyAny>)>,
    ) -> PyResult<Kernel> {
        contained(py, || {
            let scope = match outer {
                None if iteration.is_empty() => Scope::root(&self.inner, self.kind),
                None => return Err(HostError::Argument("iteration values need an outer kernel".into())),
                Some(outer) => {
                    let values = iteration
                        .iter()
                        .map(|(n, v)| Ok((n.clone(), to_value(py, v)?)))
                        .collect::<HostResult<Vec<_>>>()?;
                    py.allow_threads(|| Scope::bind(&self.inner, self.kind, &outer.scope, values))
                }
            };
            Ok(Kernel { scope: scope? })
        })
    }

    /// The manifest (JSON text): the names a program compiled against this
    /// one may read, with their types and binding forms.
    fn manifest_json(&self) -> String {
        Manifest::of_program(&self.inner).to_json()
    }

    /// Inputs as (name, origin): `declared`, `inferred`, `outer`, `iteration` or `cell`.
    #[getter]
    fn input_origins(&self) -> Vec<(String, String)> {
        self.inner
            .inputs
            .iter()
            .map(|i| {
                let origin = serde_json::to_string(&i.origin).unwrap_or_default().trim_matches('"').to_string();
                (i.name.clone(), origin)
            })
            .collect()
    }

    /// The outer literals inlined into the program, as (name, value).
    fn inlined(&self, py: Python<'_>) -> PyResult<Vec<(String, PyObject)>> {
        self.inner.scope.inlined.iter().map(|(n, v)| Ok((n.clone(), to_py(py, v)?))).collect()
    }

    /// The Arrow schema (an object with `__arrow_c_schema__`) of the columns
    /// `names` (outputs or inputs), from their declared types.
    fn arrow_schema(&self, py: Python<'_>, names: Vec<String>) -> PyResult<pyo3_arrow::PySchema> {
        contained(py, || {
            let program = &self.inner;
            let mut types = Vec::with_capacity(names.len());
            for name in &names {
                types.push(match program.column_source(name).map_err(|m| HostError::unknown_name(m, name))? {
                    engine::ColumnSource::Output(o) => program.outputs[o].ty,
                    engine::ColumnSource::Input(i) => program.inputs[i].ty,
                });
            }
            Ok(pyo3_arrow::PySchema::new(arrow::schema(&names, &types)))
        })
    }
}
