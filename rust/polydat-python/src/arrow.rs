//! Arrow output: generated columns become Arrow arrays without copying their
//! values (a `Vec` becomes an Arrow buffer as it is), handed to Python through
//! the Arrow PyCapsule interface by `pyo3-arrow`; and the batch stream behind
//! `Program.iter_batches` and the command line's writers.

use crate::{generate_error, out_of_memory, py_bytes, py_error};
use arrow_array::{
    ArrayRef, BinaryArray, BooleanArray, Date32Array, Float32Array, Float64Array, Int32Array, Int64Array, RecordBatch,
    RecordBatchOptions, StringArray, TimestampMillisecondArray, UInt32Array, UInt64Array,
};
use arrow_buffer::{BooleanBuffer, Buffer, NullBuffer, OffsetBuffer, ScalarBuffer};
use arrow_schema::{DataType, Field, Schema, SchemaRef, TimeUnit};
use polydat_core::engine::column::{Column, ColumnData};
use polydat_core::engine::guard::guarded;
use polydat_core::engine::{text, Batches, GenerateError, Stop};
use polydat_core::PortType;
use pyo3::prelude::*;
use pyo3_arrow::{PyRecordBatch, PySchema};
use std::collections::HashMap;
use std::sync::mpsc::{sync_channel, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

/// The time zone of a `timestamp` column: its instants are UTC (the text
/// form ends in `Z`), so Parquet marks them adjusted to UTC.
const TIMESTAMP_ZONE: &str = "UTC";

/// The Arrow type of a declared port type.
pub fn data_type(ty: PortType) -> DataType {
    match ty {
        PortType::U64 => DataType::UInt64,
        PortType::I64 => DataType::Int64,
        PortType::U32 => DataType::UInt32,
        PortType::I32 => DataType::Int32,
        PortType::F64 => DataType::Float64,
        PortType::F32 => DataType::Float32,
        PortType::Bool => DataType::Boolean,
        PortType::Str | PortType::Json => DataType::Utf8,
        PortType::Bytes => DataType::Binary,
        PortType::Timestamp => DataType::Timestamp(TimeUnit::Millisecond, Some(TIMESTAMP_ZONE.into())),
        PortType::Date => DataType::Date32,
    }
}

/// The schema of columns `names` of declared types `types`: every field
/// nullable (a row may hold `None`), a `json` field marked in its metadata
/// (`polydat.type: json`).
pub fn schema(names: &[String], types: &[PortType]) -> SchemaRef {
    let fields: Vec<Field> = names
        .iter()
        .zip(types)
        .map(|(name, &ty)| {
            let field = Field::new(name, data_type(ty), true);
            match ty {
                PortType::Json => {
                    field.with_metadata(HashMap::from([("polydat.type".to_string(), ty.keyword().to_string())]))
                }
                _ => field,
            }
        })
        .collect();
    Arc::new(Schema::new(fields))
}

/// A column as an Arrow array of its declared type; its buffers are moved,
/// not copied (but for `bool` rows, packed into bits, and variable-size
/// offsets, narrowed to 32 bits).
pub fn column_array(column: Column) -> Result<ArrayRef, String> {
    let rows = column.len();
    let nulls = column.validity().map(|bits| NullBuffer::new(BooleanBuffer::new(Buffer::from_vec(bits), 0, rows)));
    let ty = column.ty;
    Ok(match column.data {
        ColumnData::U64(v) => Arc::new(UInt64Array::new(ScalarBuffer::from(v), nulls)),
        ColumnData::I64(v) if ty == PortType::Timestamp => {
            Arc::new(TimestampMillisecondArray::new(ScalarBuffer::from(v), nulls).with_timezone(TIMESTAMP_ZONE))
        }
        ColumnData::I64(v) => Arc::new(Int64Array::new(ScalarBuffer::from(v), nulls)),
        ColumnData::U32(v) => Arc::new(UInt32Array::new(ScalarBuffer::from(v), nulls)),
        ColumnData::I32(v) if ty == PortType::Date => Arc::new(Date32Array::new(ScalarBuffer::from(v), nulls)),
        ColumnData::I32(v) => Arc::new(Int32Array::new(ScalarBuffer::from(v), nulls)),
        ColumnData::F64(v) => Arc::new(Float64Array::new(ScalarBuffer::from(v), nulls)),
        ColumnData::F32(v) => Arc::new(Float32Array::new(ScalarBuffer::from(v), nulls)),
        ColumnData::Bool(v) => Arc::new(BooleanArray::new(v.iter().copied().collect(), nulls)),
        ColumnData::Var(v) => {
            let (offsets, data) = v.into_narrow().map_err(|v| {
                format!(
                    "a {ty} column of one batch holds {} bytes, more than Arrow's 2 GiB per array: \
                     use a smaller batch_rows",
                    v.data.len()
                )
            })?;
            let offsets = OffsetBuffer::new(ScalarBuffer::from(offsets));
            let data = Buffer::from_vec(data);
            match ty {
                PortType::Bytes => Arc::new(BinaryArray::try_new(offsets, data, nulls).map_err(|e| e.to_string())?),
                _ => Arc::new(StringArray::try_new(offsets, data, nulls).map_err(|e| e.to_string())?),
            }
        }
    })
}

/// One batch of `rows` rows of columns as an Arrow record batch of
/// `schema` (a batch of no column keeps its row count).
pub fn record_batch(schema: &SchemaRef, columns: Vec<Column>, rows: usize) -> Result<RecordBatch, String> {
    let arrays: Vec<ArrayRef> = columns.into_iter().map(column_array).collect::<Result<_, _>>()?;
    let options = RecordBatchOptions::new().with_row_count(Some(rows));
    RecordBatch::try_new_with_options(schema.clone(), arrays, &options).map_err(|e| e.to_string())
}

/// What a [`BatchStream`] yields.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Encode {
    /// Arrow record batches.
    Arrow,
    /// CSV rows (no header: see `text_header`).
    Csv,
    /// JSON Lines rows.
    Jsonl,
}

/// One batch from the producer (its rows, its columns and the rows its
/// steps emitted), or why the stream stopped.
type Produced = Result<(usize, Vec<Column>, Vec<String>), GenerateError>;

/// How long the consumer waits for a batch before it looks for a signal.
const SIGNAL_POLL: Duration = Duration::from_millis(50);

/// The rows of a plan, a batch at a time, generated ahead: a producer thread
/// runs the generator (with its own workers) and hands each batch over a
/// channel of one slot, so at most three batches exist at once (the one the
/// caller holds, the one waiting, the one being made). Iterating yields
/// Arrow record batches or encoded text; Ctrl-C while waiting stops the
/// producer and raises in the caller.
#[pyclass(module = "polydat._core")]
pub struct BatchStream {
    schema: SchemaRef,
    names: Vec<String>,
    encode: Encode,
    /// Whether each item is `(batch, emitted rows)`.
    emitted: bool,
    receiver: Option<Mutex<Receiver<Produced>>>,
    stop: Arc<Stop<'static>>,
    worker: Option<JoinHandle<()>>,
}

impl BatchStream {
    /// Starts the producer of `batches`; `cycles` puts a u64 column of the
    /// rows' cycle numbers first (named `names[0]`); `emitted` pairs each
    /// batch with the rows `emit_row` emitted while it was made.
    pub fn start(
        mut batches: Batches,
        names: Vec<String>,
        cycles: bool,
        encode: Encode,
        emitted: bool,
    ) -> Result<BatchStream, String> {
        let mut types = Vec::with_capacity(names.len());
        if cycles {
            types.push(PortType::U64);
        }
        types.extend(batches.generator().types());
        let schema = schema(&names, &types);
        let step = batches.generator().plan().step;
        let stop = Arc::new(Stop::new());
        let (sender, receiver) = sync_channel(1);
        let producer_stop = stop.clone();
        let worker = std::thread::Builder::new()
            .name("polydat-batches".into())
            .spawn(move || {
                let stop = &*producer_stop;
                loop {
                    let (first, rows) = (batches.next_cycle(), batches.next_rows());
                    let next = guarded(std::panic::AssertUnwindSafe(|| batches.next_batch(stop)));
                    let item = match next {
                        Ok(None) => break,
                        Ok(Some(Ok(mut columns))) => match cycles {
                            true => match Column::cycles(first, rows, step) {
                                Some(c) => {
                                    columns.insert(0, c);
                                    Ok((rows, columns, batches.take_emitted()))
                                }
                                None => Err(GenerateError::OutOfMemory { rows, columns: 1 }),
                            },
                            false => Ok((rows, columns, batches.take_emitted())),
                        },
                        Ok(Some(Err(e))) => Err(e),
                        Err(_) => Err(GenerateError::Panicked),
                    };
                    let last = item.is_err();
                    if sender.send(item).is_err() || last {
                        break;
                    }
                }
            })
            .map_err(|e| format!("could not start the batch thread: {e}"))?;
        Ok(BatchStream {
            schema,
            names,
            encode,
            emitted,
            receiver: Some(Mutex::new(receiver)),
            stop,
            worker: Some(worker),
        })
    }

    /// Stops the producer and waits for it.
    fn finish(&mut self) {
        self.stop.request();
        self.receiver = None;
        if let Some(worker) = self.worker.take() {
            let _ = worker.join();
        }
    }
}

impl Drop for BatchStream {
    fn drop(&mut self) {
        self.finish();
    }
}

#[pymethods]
impl BatchStream {
    /// The Arrow schema of the batches (an object with `__arrow_c_schema__`).
    #[getter]
    fn schema(&self) -> PySchema {
        PySchema::new(self.schema.clone())
    }

    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __next__(&mut self, py: Python<'_>) -> PyResult<Option<PyObject>> {
        let (rows, columns, emitted) = loop {
            let Some(receiver) = &self.receiver else { return Ok(None) };
            let wait = || receiver.lock().unwrap_or_else(|p| p.into_inner()).recv_timeout(SIGNAL_POLL);
            match py.allow_threads(wait) {
                Ok(Ok(item)) => break item,
                Ok(Err(e)) => {
                    self.finish();
                    return Err(generate_error(py, e));
                }
                Err(RecvTimeoutError::Timeout) => {
                    if let Err(e) = py.check_signals() {
                        self.finish();
                        return Err(e);
                    }
                }
                Err(RecvTimeoutError::Disconnected) => {
                    self.finish();
                    return Ok(None);
                }
            }
        };
        let item = self.item(py, rows, columns)?;
        Ok(Some(match (item, self.emitted) {
            (Some(item), true) => (item, emitted).into_pyobject(py)?.into_any().unbind(),
            (Some(item), false) => item,
            (None, _) => return Ok(None),
        }))
    }

    /// Stops generating (the stream yields nothing more).
    fn close(&mut self) {
        self.finish();
    }
}

impl BatchStream {
    /// One batch's columns as the stream's item: an Arrow record batch or encoded text.
    fn item(&mut self, py: Python<'_>, rows: usize, columns: Vec<Column>) -> PyResult<Option<PyObject>> {
        let (encode, schema) = (self.encode, &self.schema);
        let names: Vec<&str> = self.names.iter().map(String::as_str).collect();
        match encode {
            Encode::Arrow => {
                let batch = py.allow_threads(|| guarded(|| record_batch(schema, columns, rows)));
                match batch {
                    Ok(Ok(batch)) => Ok(Some(PyRecordBatch::new(batch).into_pyobject(py)?.into_any().unbind())),
                    Ok(Err(e)) => Err(py_error(py, "PolydatError", (e,))),
                    Err(panic) => {
                        Err(py_error(py, "InternalError", (format!("internal error (a Rust panic): {panic}"),)))
                    }
                }
            }
            Encode::Csv | Encode::Jsonl => {
                let text = py.allow_threads(|| {
                    guarded(|| {
                        let refs: Vec<&Column> = columns.iter().collect();
                        let mut out = Vec::new();
                        let encoded = match encode {
                            Encode::Csv => text::csv_rows(&refs, &mut out),
                            _ => text::jsonl_rows(&names, &refs, &mut out),
                        };
                        encoded.map(|()| out)
                    })
                });
                match text {
                    Ok(Ok(out)) => {
                        let bytes = py_bytes(py, &out);
                        drop(out);
                        Ok(Some(bytes?.into_any().unbind()))
                    }
                    Ok(Err(_)) => {
                        self.finish();
                        Err(out_of_memory(py, "the text of one batch of rows"))
                    }
                    Err(panic) => {
                        Err(py_error(py, "InternalError", (format!("internal error (a Rust panic): {panic}"),)))
                    }
                }
            }
        }
    }
}
