//! Arrow output: generated columns become Arrow arrays without copying their
//! values (a `Vec` becomes an Arrow buffer as it is), handed to Python through
//! the Arrow PyCapsule interface by `pyo3-arrow`; and the batch stream behind
//! `Program.iter_batches` and the command line's writers.

use crate::consumer::one_consumer;
use crate::convert::py_bytes;
use crate::errors::{panic_text, HostError, HostResult};
use arrow_array::types::{ArrowDictionaryKeyType, UInt16Type, UInt32Type, UInt8Type};
use arrow_array::StructArray;
use arrow_array::{
    ArrayRef, BinaryArray, BooleanArray, Date32Array, Decimal128Array, DictionaryArray, FixedSizeBinaryArray,
    Float16Array, Float32Array, Float64Array, Int16Array, Int32Array, Int64Array, Int8Array, ListArray, PrimitiveArray,
    RecordBatch, RecordBatchOptions, StringArray, TimestampMillisecondArray, UInt16Array, UInt32Array, UInt64Array,
    UInt8Array,
};
use arrow_buffer::{BooleanBuffer, Buffer, NullBuffer, OffsetBuffer, ScalarBuffer};
use arrow_schema::{ArrowError, DataType, Field, Schema, SchemaRef, TimeUnit};
use polydat_core::columns::formats::{self, Writer};
use polydat_core::columns::text::TextEncoding;
use polydat_core::columns::{Column, ColumnData, VarRows};
use polydat_core::engine::{GenerateError, Stop};
use polydat_core::generation::fanout::FanOut;
use polydat_core::generation::Batches;
use polydat_core::node::guard::guarded;
use polydat_core::types::VectorType;
use polydat_core::PortType;
use pyo3::prelude::*;
use pyo3::types::PyCapsule;
use pyo3_arrow::ffi::{to_stream_pycapsule, ArrayIterator};
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
        PortType::U16 => DataType::UInt16,
        PortType::I16 => DataType::Int16,
        PortType::U8 => DataType::UInt8,
        PortType::I8 => DataType::Int8,
        PortType::F64 => DataType::Float64,
        PortType::F32 => DataType::Float32,
        PortType::F16 => DataType::Float16,
        PortType::Bool => DataType::Boolean,
        PortType::Str | PortType::Json => DataType::Utf8,
        PortType::Bytes => DataType::Binary,
        PortType::Timestamp => DataType::Timestamp(TimeUnit::Millisecond, Some(TIMESTAMP_ZONE.into())),
        PortType::Date => DataType::Date32,
        PortType::Decimal(d) => DataType::Decimal128(d.precision, d.scale as i8),
        PortType::Vector(t) => DataType::List(Arc::new(list_item(t))),
        // Every reader takes 16 fixed bytes losslessly (a decimal128 cannot
        // hold every u128 or i128; a decimal256 some readers refuse or read
        // as a float); the bytes are little-endian, the field's metadata
        // names the type.
        PortType::U128 | PortType::I128 => DataType::FixedSizeBinary(WIDE_BYTES),
    }
}

/// The width of a `u128` or `i128` row in Arrow: 16 little-endian bytes.
const WIDE_BYTES: i32 = 16;

/// The item field of a list column of element type `t`: `int32`, `int64`
/// or `float64`, never null (a list holds no `None`; a row may be one).
fn list_item(t: VectorType) -> Field {
    let element = match t {
        VectorType::I32 => DataType::Int32,
        VectorType::I64 => DataType::Int64,
        VectorType::F64 => DataType::Float64,
    };
    Field::new_list_field(element, false)
}

/// A list column's rows (packed elements) as an Arrow list array of its
/// element type: the elements copied out of the packed bytes, the row
/// boundaries counted in elements.
fn list_array(rows: &VarRows, t: VectorType, count: usize, nulls: Option<NullBuffer>) -> Result<ArrayRef, String> {
    let width = t.width();
    let mut offsets: Vec<i32> = Vec::with_capacity(count + 1);
    for i in 0..=count {
        let elements = rows.offsets.get(i) / width;
        offsets.push(i32::try_from(elements).map_err(|_| {
            format!("a {t} column of one batch holds {elements} elements, more than an Arrow list's 2^31: use a smaller batch_rows")
        })?);
    }
    let data = &rows.data[..rows.offsets.get(count)];
    let values: ArrayRef = match t {
        VectorType::I32 => Arc::new(Int32Array::from_iter_values(
            data.chunks_exact(4).map(|c| i32::from_le_bytes(c.try_into().expect("4 bytes"))),
        )),
        VectorType::I64 => Arc::new(Int64Array::from_iter_values(
            data.chunks_exact(8).map(|c| i64::from_le_bytes(c.try_into().expect("8 bytes"))),
        )),
        VectorType::F64 => Arc::new(Float64Array::from_iter_values(
            data.chunks_exact(8).map(|c| f64::from_le_bytes(c.try_into().expect("8 bytes"))),
        )),
    };
    let list =
        ListArray::try_new(Arc::new(list_item(t)), OffsetBuffer::new(ScalarBuffer::from(offsets)), values, nulls)
            .map_err(|e| e.to_string())?;
    Ok(Arc::new(list))
}

/// The schema of columns `names` of declared types `types`: every field
/// nullable (a row may hold `None`), a `json` field marked in its metadata
/// (`polydat.type: json`).
pub fn schema(names: &[String], types: &[PortType]) -> SchemaRef {
    schema_of(names, types, &vec![true; types.len()])
}

/// [`schema`] with field `i` nullable only when `nullable[i]`.
pub fn schema_of(names: &[String], types: &[PortType], nullable: &[bool]) -> SchemaRef {
    let fields: Vec<Field> = names
        .iter()
        .zip(types)
        .zip(nullable)
        .map(|((name, &ty), &nullable)| {
            let field = Field::new(name, data_type(ty), nullable);
            match ty {
                PortType::Json | PortType::U128 | PortType::I128 => {
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
        ColumnData::U16(v) => Arc::new(UInt16Array::new(ScalarBuffer::from(v), nulls)),
        ColumnData::I16(v) => Arc::new(Int16Array::new(ScalarBuffer::from(v), nulls)),
        ColumnData::U8(v) => Arc::new(UInt8Array::new(ScalarBuffer::from(v), nulls)),
        ColumnData::I8(v) => Arc::new(Int8Array::new(ScalarBuffer::from(v), nulls)),
        ColumnData::F64(v) => Arc::new(Float64Array::new(ScalarBuffer::from(v), nulls)),
        ColumnData::F32(v) => Arc::new(Float32Array::new(ScalarBuffer::from(v), nulls)),
        ColumnData::F16(v) => Arc::new(Float16Array::new(ScalarBuffer::from(v), nulls)),
        ColumnData::Bool(v) => Arc::new(BooleanArray::new(v.iter().copied().collect(), nulls)),
        ColumnData::Var(v) if ty.vector().is_some() => {
            list_array(&v, ty.vector().expect("a list column"), rows, nulls)?
        }
        ColumnData::Var(v) if ty.decimal().is_some() => {
            // Each row is 16 bytes, or none for a null row (masked).
            let unit = |row: &[u8]| row.try_into().map_or(0, i128::from_le_bytes);
            let units: Vec<i128> = match v.rows_of_width(16) {
                Some(all) => all.map(unit).collect(),
                None => (0..rows).map(|i| unit(v.row(i))).collect(),
            };
            let d = ty.decimal().expect("a decimal column");
            Arc::new(
                Decimal128Array::new(ScalarBuffer::from(units), nulls)
                    .with_precision_and_scale(d.precision, d.scale as i8)
                    .map_err(|e| e.to_string())?,
            )
        }
        ColumnData::Var(v) if ty.is_wide_integer() => {
            // A `None` row holds no bytes: its 16 bytes are zeros, masked.
            let mut data = Vec::with_capacity(rows * WIDE_BYTES as usize);
            for i in 0..rows {
                match v.row(i) {
                    row if row.len() == WIDE_BYTES as usize => data.extend_from_slice(row),
                    _ => data.extend_from_slice(&[0; WIDE_BYTES as usize]),
                }
            }
            Arc::new(
                FixedSizeBinaryArray::try_new(WIDE_BYTES, Buffer::from_vec(data), nulls).map_err(|e| e.to_string())?,
            )
        }
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

/// A column of picks ([`Column::picks`]) as a dictionary array: the
/// table's strings, and each row's index (the narrowest unsigned keys that
/// index every string); `None` for any other column.
fn picks_array(column: &mut Column) -> Option<Result<ArrayRef, ArrowError>> {
    fn keys<K: ArrowDictionaryKeyType>(
        indices: &[u32],
        nulls: Option<NullBuffer>,
        values: ArrayRef,
    ) -> Result<ArrayRef, ArrowError>
    where
        K::Native: TryFrom<u32>,
    {
        let keys: Vec<K::Native> = indices.iter().map(|&i| K::Native::try_from(i).unwrap_or_default()).collect();
        Ok(Arc::new(DictionaryArray::<K>::try_new(PrimitiveArray::<K>::new(ScalarBuffer::from(keys), nulls), values)?))
    }
    let picks = column.picks.take()?;
    let rows = column.len();
    let nulls = column.validity().map(|bits| NullBuffer::new(BooleanBuffer::new(Buffer::from_vec(bits), 0, rows)));
    let values: ArrayRef = Arc::new(StringArray::from_iter_values(picks.table.values().iter().map(|s| s.as_ref())));
    Some(match picks.table.len() {
        0..=256 => keys::<UInt8Type>(&picks.indices, nulls, values),
        257..=65536 => keys::<UInt16Type>(&picks.indices, nulls, values),
        _ => keys::<UInt32Type>(&picks.indices, nulls, values),
    })
}

/// [`record_batch`] with each column of picks as a dictionary array (its
/// field's type changed to match, its metadata kept).
pub fn dictionary_batch(schema: &SchemaRef, columns: Vec<Column>, rows: usize) -> Result<RecordBatch, String> {
    let mut fields: Vec<Field> = schema.fields().iter().map(|f| f.as_ref().clone()).collect();
    if fields.len() != columns.len() {
        return Err(format!("internal: {} columns for a schema of {} fields", columns.len(), fields.len()));
    }
    let arrays: Vec<ArrayRef> = columns
        .into_iter()
        .zip(fields.iter_mut())
        .map(|(mut column, field)| match picks_array(&mut column) {
            Some(array) => {
                let array = array.map_err(|e| e.to_string())?;
                *field = field.clone().with_data_type(array.data_type().clone());
                Ok(array)
            }
            None => column_array(column),
        })
        .collect::<Result<_, _>>()?;
    let schema = Arc::new(Schema::new_with_metadata(fields, schema.metadata().clone()));
    let options = RecordBatchOptions::new().with_row_count(Some(rows));
    RecordBatch::try_new_with_options(schema, arrays, &options).map_err(|e| e.to_string())
}

/// What a [`BatchStream`] yields.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Encode {
    /// Arrow record batches.
    Arrow,
    /// Arrow record batches shaped for a Parquet writer: a column of picks
    /// among literal strings ([`Column::picks`]) as a dictionary array (the
    /// strings, and each row's index), which the writer takes without
    /// hashing each row; and a field that no row can hold `None` in marked
    /// non-nullable (its column written without definition levels). The
    /// batches' schemas may differ (a batch whose column could not keep its
    /// picks has a plain `string` column there).
    Parquet,
    /// Rows as text (no header: see `text_header`).
    Text(TextEncoding),
}

impl Encode {
    /// The batches a format's writer takes: its text, or Arrow batches
    /// (shaped for the Parquet writer, or plain for an Arrow IPC stream).
    pub fn of(writer: Writer) -> Encode {
        match writer {
            Writer::Text(text) => Encode::Text(text),
            Writer::Parquet => Encode::Parquet,
            Writer::ArrowIpc => Encode::Arrow,
        }
    }
}

/// One batch from the producer: its rows, its columns and the rows its
/// steps emitted (`emit_row`).
type Batch = (usize, Vec<Column>, Vec<String>);

/// A batch, or why the stream stopped.
type Produced = Result<Batch, GenerateError>;

/// The most bytes one `write` call hands the kernel when a text stream goes
/// to a file. Measured on Linux 6.18, a gigabyte written in writes of this
/// size cost 0.2–0.3 s of system time in every run; in writes of megabytes
/// (a batch's text at once) 0.3 s in most runs and 1.7–2.5 s in others.
const WRITE_PIECE: usize = 128 << 10;

/// What a batch stream is called in the error of a second consumer.
const STREAM: &str = "this batch iterator";

/// How long the consumer waits for a batch before it looks for a signal.
const SIGNAL_POLL: Duration = Duration::from_millis(50);

/// The rows of a plan, a batch at a time, generated ahead: a producer thread
/// runs the generator (with its own workers) and hands each batch over a
/// channel of one slot, so at most three batches exist at once (the one the
/// caller holds, the one waiting, the one being made). The producer starts
/// at the first batch read: a stream only looked at (its schema) makes no
/// row. Iterating yields Arrow record batches or encoded text; Ctrl-C while
/// waiting stops the producer and raises in the caller.
#[pyclass(module = "polydat._core")]
pub struct BatchStream {
    schema: SchemaRef,
    names: Vec<String>,
    encode: Encode,
    /// Whether each item is `(batch, emitted rows)`.
    emitted: bool,
    feed: Feed,
    /// The rows of the batch yielded last.
    rows: usize,
}

/// Where a stream's next batches come from.
enum Feed {
    /// Not started: the source, for the producer to take (boxed: a source
    /// is much larger than a running producer's handle).
    Pending(Box<Mutex<Source>>),
    /// The producer runs.
    Running(Producer),
    /// Every batch was taken, or the stream was closed or handed over.
    Over,
}

impl Feed {
    /// The running producer, started now if it was pending (`None` once over).
    fn producer(&mut self) -> Result<Option<&Producer>, String> {
        if let Feed::Pending(_) = self {
            let Feed::Pending(source) = std::mem::replace(self, Feed::Over) else { unreachable!() };
            *self = Feed::Running(Producer::start(source.into_inner().unwrap_or_else(|p| p.into_inner()))?);
        }
        Ok(match self {
            Feed::Running(producer) => Some(producer),
            _ => None,
        })
    }
}

/// The thread that makes a stream's batches, and the channel it hands them
/// over. Dropping it stops the thread and waits for it.
struct Producer {
    receiver: Mutex<Receiver<Produced>>,
    stop: Arc<Stop<'static>>,
    worker: Option<JoinHandle<()>>,
}

impl Producer {
    /// Starts the thread making `source`'s batches.
    fn start(mut source: Source) -> Result<Producer, String> {
        let stop = Arc::new(Stop::new());
        let (sender, receiver) = sync_channel(1);
        let producer_stop = stop.clone();
        let worker = std::thread::Builder::new()
            .name("polydat-batches".into())
            .spawn(move || {
                let stop = &*producer_stop;
                loop {
                    let item = match guarded(std::panic::AssertUnwindSafe(|| source.next_batch(stop))) {
                        Ok(None) => break,
                        Ok(Some(item)) => item,
                        Err(_) => Err(GenerateError::Panicked),
                    };
                    let last = item.is_err();
                    if sender.send(item).is_err() || last {
                        break;
                    }
                }
            })
            .map_err(|e| format!("could not start the batch thread: {e}"))?;
        Ok(Producer { receiver: Mutex::new(receiver), stop, worker: Some(worker) })
    }

    /// The next batch, waiting up to `wait` for it.
    fn next(&self, wait: Option<Duration>) -> Result<Produced, RecvTimeoutError> {
        let receiver = self.receiver.lock().unwrap_or_else(|p| p.into_inner());
        match wait {
            Some(wait) => receiver.recv_timeout(wait),
            None => receiver.recv().map_err(|_| RecvTimeoutError::Disconnected),
        }
    }
}

impl Drop for Producer {
    fn drop(&mut self) {
        self.stop.request();
        // Dropping the receiver unblocks a producer waiting to hand a batch over.
        drop(std::mem::replace(&mut self.receiver, Mutex::new(sync_channel(0).1)));
        if let Some(worker) = self.worker.take() {
            let _ = worker.join();
        }
    }
}

/// Where a [`BatchStream`]'s batches come from.
pub enum Source {
    /// The rows of a program's plan; `cycles` puts a u64 column of the
    /// rows' cycle numbers first.
    Plan {
        /// The batches.
        batches: Batches,
        /// Put the cycle numbers first.
        cycles: bool,
    },
    /// The rows of a one-to-many phase.
    FanOut(FanOut),
}

impl Source {
    /// The declared type of each column the batches hold, in order.
    fn types(&self) -> Vec<PortType> {
        match self {
            Source::Plan { batches, cycles } => {
                let mut types = Vec::new();
                if *cycles {
                    types.push(PortType::U64);
                }
                types.extend(batches.generator().types());
                types
            }
            Source::FanOut(fanout) => fanout.types(),
        }
    }

    /// Per column: whether a row of it can hold `None`.
    fn may_be_none(&self) -> Vec<bool> {
        match self {
            Source::Plan { batches, cycles } => {
                let mut none = Vec::new();
                if *cycles {
                    none.push(false);
                }
                none.extend(batches.generator().may_be_none());
                none
            }
            Source::FanOut(fanout) => fanout.may_be_none(),
        }
    }

    /// The next batch, or `None` at the end.
    fn next_batch(&mut self, stop: &Stop<'_>) -> Option<Produced> {
        match self {
            Source::Plan { batches, cycles } => {
                let (first, rows) = (batches.next_cycle(), batches.next_rows());
                let step = batches.generator().plan().step;
                let columns = batches.next_batch(stop)?;
                let emitted = batches.take_emitted();
                Some(columns.and_then(|mut columns| {
                    if *cycles {
                        let c =
                            Column::cycles(first, rows, step).ok_or(GenerateError::OutOfMemory { rows, columns: 1 })?;
                        columns.insert(0, c);
                    }
                    Ok((rows, columns, emitted))
                }))
            }
            Source::FanOut(fanout) => Some(
                fanout.next_batch(stop)?.map(|columns| (columns.first().map_or(0, Column::len), columns, Vec::new())),
            ),
        }
    }
}

impl BatchStream {
    /// Starts the producer of `batches`; `cycles` puts a u64 column of the
    /// rows' cycle numbers first (named `names[0]`); `emitted` pairs each
    /// batch with the rows `emit_row` emitted while it was made.
    pub fn start(
        batches: Batches,
        names: Vec<String>,
        cycles: bool,
        encode: Encode,
        emitted: bool,
    ) -> Result<BatchStream, String> {
        let mut stream = BatchStream::of(Source::Plan { batches, cycles }, names, encode)?;
        stream.emitted = emitted;
        Ok(stream)
    }

    /// A stream of `source`'s batches, whose columns are named `names` (the
    /// producer starts at the first batch read).
    pub fn of(source: Source, names: Vec<String>, encode: Encode) -> Result<BatchStream, String> {
        let types = source.types();
        let schema = match encode {
            Encode::Parquet => schema_of(&names, &types, &source.may_be_none()),
            _ => schema(&names, &types),
        };
        Ok(BatchStream {
            schema,
            names,
            encode,
            emitted: false,
            feed: Feed::Pending(Box::new(Mutex::new(source))),
            rows: 0,
        })
    }

    /// Stops the producer and waits for it.
    fn finish(&mut self) {
        self.feed = Feed::Over;
    }

    /// The next batch's columns, waiting for the producer without the GIL
    /// (Ctrl-C meanwhile stops it and raises); `None` at the end. After an
    /// error the stream is over.
    fn next_columns(&mut self, py: Python<'_>) -> HostResult<Option<Batch>> {
        loop {
            let producer = match self.feed.producer() {
                Ok(Some(producer)) => producer,
                Ok(None) => return Ok(None),
                Err(e) => {
                    self.finish();
                    return Err(HostError::Internal(e));
                }
            };
            match py.allow_threads(|| producer.next(Some(SIGNAL_POLL))) {
                Ok(Ok(batch)) => return Ok(Some(batch)),
                Ok(Err(e)) => {
                    self.finish();
                    return Err(e.into());
                }
                Err(RecvTimeoutError::Timeout) => {
                    if let Err(e) = py.check_signals() {
                        self.finish();
                        return Err(e.into());
                    }
                }
                Err(RecvTimeoutError::Disconnected) => {
                    self.finish();
                    return Ok(None);
                }
            }
        }
    }
}

/// Appends the text of one batch of columns (named `names`) to `out`.
fn encode_text(
    text: TextEncoding,
    names: &[&str],
    columns: &[Column],
    out: &mut Vec<u8>,
) -> Result<(), polydat_core::columns::NoMemory> {
    let refs: Vec<&Column> = columns.iter().collect();
    text.rows(names, &refs, out)
}

/// The batches of a [`BatchStream`] handed to an Arrow C stream consumer,
/// which may call from any thread: the reader waits on the producer without
/// the GIL (the producer never takes it). The producer starts at the first
/// batch read, and stops when the reader is dropped (the consumer released
/// the stream).
struct Reader {
    schema: SchemaRef,
    feed: Feed,
}

impl Iterator for Reader {
    type Item = Result<RecordBatch, ArrowError>;

    fn next(&mut self) -> Option<Self::Item> {
        let batch = match self.feed.producer() {
            Err(e) => Err(e),
            Ok(None) => return None,
            Ok(Some(producer)) => match producer.next(None) {
                Err(_) => {
                    self.feed = Feed::Over;
                    return None;
                }
                Ok(produced) => produced.map_err(|e| e.to_string()).and_then(|(rows, columns, _)| {
                    guarded(|| record_batch(&self.schema, columns, rows))
                        .unwrap_or_else(|panic| Err(panic_text(&panic)))
                }),
            },
        };
        if batch.is_err() {
            self.feed = Feed::Over;
        }
        Some(batch.map_err(|message| ArrowError::ExternalError(message.into())))
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

    /// The rows of the batch yielded last.
    #[getter]
    fn rows(&self) -> usize {
        self.rows
    }

    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __next__(slf: &Bound<'_, Self>) -> PyResult<Option<PyObject>> {
        let (py, mut this) = (slf.py(), one_consumer(slf, STREAM)?);
        let Some((rows, columns, emitted)) = this.next_columns(py)? else { return Ok(None) };
        this.rows = rows;
        let item = this.item(py, rows, columns)?;
        Ok(Some(match this.emitted {
            true => (item, emitted).into_pyobject(py)?.into_any().unbind(),
            false => item,
        }))
    }

    /// Stops generating (the stream yields nothing more).
    fn close(slf: &Bound<'_, Self>) -> PyResult<()> {
        one_consumer(slf, STREAM)?.finish();
        Ok(())
    }

    /// Appends the rest of a text stream (CSV or JSON Lines rows) to the
    /// file at `path`, batch after batch, without the GIL and without a
    /// Python object per batch; returns the rows written. Ctrl-C stops the
    /// producer and raises; a failed write is an `OSError`.
    fn write_text(slf: &Bound<'_, Self>, path: std::path::PathBuf) -> PyResult<usize> {
        let (py, mut this) = (slf.py(), one_consumer(slf, STREAM)?);
        this.write_text_to(py, path)
    }

    /// The Arrow PyCapsule stream interface: the rest of the stream as an
    /// Arrow C stream (a capsule named `arrow_array_stream`) that DuckDB,
    /// polars, pyarrow and other Arrow consumers read batch by batch, as
    /// the producer makes them; afterwards this object yields nothing more.
    /// `requested_schema` is honoured when the columns can be cast to it.
    /// Only a stream of Arrow record batches (not text) has one.
    #[pyo3(signature = (requested_schema=None))]
    fn __arrow_c_stream__<'py>(
        slf: &Bound<'py, Self>,
        requested_schema: Option<Bound<'py, PyCapsule>>,
    ) -> PyResult<Bound<'py, PyCapsule>> {
        let (py, mut this) = (slf.py(), one_consumer(slf, STREAM)?);
        let this = &mut *this;
        if this.encode != Encode::Arrow {
            let message =
                "only a stream of plain Arrow batches has an Arrow C stream (not one of text or of dictionary batches)";
            return Err(HostError::Argument(message.into()).into_pyerr(py));
        }
        if let Feed::Over = this.feed {
            return Err(HostError::Argument("the stream was read or closed already".into()).into_pyerr(py));
        }
        // The rest of the stream is the reader's now (this object yields nothing more).
        let reader = Reader { schema: this.schema.clone(), feed: std::mem::replace(&mut this.feed, Feed::Over) };
        let schema = this.schema.clone();
        let arrays = reader.map(|batch| Ok(Arc::new(StructArray::from(batch?)) as ArrayRef));
        let field = Field::new_struct("", schema.fields().clone(), false).with_metadata(schema.metadata.clone());
        let arrays = Box::new(ArrayIterator::new(arrays, Arc::new(field)));
        to_stream_pycapsule(py, arrays, requested_schema).map_err(PyErr::from)
    }
}

impl BatchStream {
    /// [`BatchStream::write_text`]'s work, on the stream borrowed.
    fn write_text_to(&mut self, py: Python<'_>, path: std::path::PathBuf) -> PyResult<usize> {
        let Encode::Text(encoding) = self.encode else {
            let message = format!("write_text writes a stream of text ({})", formats::listed(|f| !f.binary()));
            return Err(HostError::Argument(message).into_pyerr(py));
        };
        let mut file = std::fs::OpenOptions::new().append(true).open(&path)?;
        let owned = self.names.clone();
        let names: Vec<&str> = owned.iter().map(String::as_str).collect();
        let (mut text, mut total) = (Vec::new(), 0);
        while let Some((rows, columns, _)) = self.next_columns(py)? {
            total += rows;
            let written = py.allow_threads(|| {
                guarded(|| {
                    text.clear();
                    match encode_text(encoding, &names, &columns, &mut text) {
                        Ok(()) => text
                            .chunks(WRITE_PIECE)
                            .try_for_each(|piece| std::io::Write::write_all(&mut file, piece))
                            .map_err(Some),
                        Err(_) => Err(None),
                    }
                })
            });
            let failed = match written {
                Ok(Ok(())) => py.check_signals().err().map(HostError::Python),
                Ok(Err(Some(e))) => Some(HostError::Python(e.into())),
                Ok(Err(None)) => Some(HostError::out_of_memory("the text of one batch of rows")),
                Err(panic) => Some(HostError::panicked(&panic)),
            };
            // Between batches, as a loop of `__next__` would, a signal's handler runs.
            if let Some(e) = failed {
                self.finish();
                return Err(e.into_pyerr(py));
            }
        }
        Ok(total)
    }

    /// One batch's columns as the stream's item: an Arrow record batch or encoded text.
    fn item(&mut self, py: Python<'_>, rows: usize, columns: Vec<Column>) -> HostResult<PyObject> {
        let (encode, schema) = (self.encode, &self.schema);
        let names: Vec<&str> = self.names.iter().map(String::as_str).collect();
        match encode {
            Encode::Arrow | Encode::Parquet => match py.allow_threads(|| {
                guarded(|| match encode {
                    Encode::Parquet => dictionary_batch(schema, columns, rows),
                    _ => record_batch(schema, columns, rows),
                })
            }) {
                Ok(Ok(batch)) => Ok(PyRecordBatch::new(batch).into_pyobject(py)?.into_any().unbind()),
                Ok(Err(e)) => Err(HostError::Polydat(e)),
                Err(panic) => Err(HostError::panicked(&panic)),
            },
            Encode::Text(encoding) => {
                let text = py.allow_threads(|| {
                    guarded(|| {
                        let mut out = Vec::new();
                        encode_text(encoding, &names, &columns, &mut out).map(|()| out)
                    })
                });
                match text {
                    Ok(Ok(out)) => {
                        let bytes = py_bytes(py, &out);
                        drop(out);
                        Ok(bytes?.into_any().unbind())
                    }
                    Ok(Err(_)) => {
                        self.finish();
                        Err(HostError::out_of_memory("the text of one batch of rows"))
                    }
                    Err(panic) => Err(HostError::panicked(&panic)),
                }
            }
        }
    }
}
