//! A serde serializer that writes any protocol value as a flat "tape" of f64
//! words plus a table of distinct strings, which the facade's decoder
//! (crate/js/hookgrad.js, `decodeTape`) turns back into plain JS objects in
//! one pass. One copy crosses the boundary instead of one call per field
//! and element (serde-wasm-bindgen's way): `graph()` / `trace()` of a
//! 1,000-node graph spent most of their time in those calls.
//!
//! Tape grammar (one value): `0` null · `1` true · `2` false · `3 x` number
//! · `4 i` strings[i] · `5 n v…` array of n values · `6 n (k v)…` object of n
//! entries (keys are values too, normally strings). An object's or array's
//! count is patched in at its end, so skipped fields need no care.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use serde::ser::{self, Serialize};

pub(crate) const NULL: f64 = 0.0;
pub(crate) const TRUE: f64 = 1.0;
pub(crate) const FALSE: f64 = 2.0;
pub(crate) const NUM: f64 = 3.0;
pub(crate) const STR: f64 = 4.0;
pub(crate) const ARR: f64 = 5.0;
pub(crate) const OBJ: f64 = 6.0;

/// FxHash-style: SipHash on every key of every record was a quarter of
/// `graph()`'s time.
#[derive(Default)]
struct Fx(u64);

impl Fx {
    fn add(&mut self, w: u64) {
        self.0 = (self.0.rotate_left(5) ^ w).wrapping_mul(0x517c_c1b7_2722_0a95);
    }
}

impl Hasher for Fx {
    fn finish(&self) -> u64 {
        self.0
    }
    /// Length, first and last 8 bytes: O(1) per string (the map compares
    /// whole keys, so a collision costs time, never correctness).
    fn write(&mut self, bytes: &[u8]) {
        let word = |b: &[u8]| b.iter().fold(0u64, |w, &x| (w << 8) | u64::from(x));
        let n = bytes.len();
        self.add(n as u64);
        self.add(word(&bytes[..n.min(8)]));
        self.add(word(&bytes[n.saturating_sub(8)..]));
    }
    fn write_usize(&mut self, n: usize) {
        self.add(n as u64);
    }
}

type FxMap<K> = HashMap<K, u32, BuildHasherDefault<Fx>>;

#[derive(Default)]
pub struct Tape {
    pub words: Vec<f64>,
    pub strings: Vec<String>,
    index: FxMap<String>,
    /// Field names and variant names are `&'static str`: found by address
    /// and length (the linker may merge "grad" into "gradFn"'s bytes).
    statics: FxMap<(usize, usize)>,
}

#[derive(Debug)]
pub struct TapeError(String);

impl std::fmt::Display for TapeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}
impl std::error::Error for TapeError {}
impl ser::Error for TapeError {
    fn custom<T: std::fmt::Display>(msg: T) -> Self {
        TapeError(msg.to_string())
    }
}

type R = Result<(), TapeError>;

impl Tape {
    /// Empties the tape, keeping its buffers' capacity for the next record.
    pub fn clear(&mut self) {
        self.words.clear();
        self.strings.clear();
        self.index.clear();
        self.statics.clear();
    }

    fn static_string(&mut self, s: &'static str) {
        let key = (s.as_ptr() as usize, s.len());
        let i = match self.statics.get(&key) {
            Some(&i) => i,
            None => {
                let i = self.intern(s);
                self.statics.insert(key, i);
                i
            }
        };
        self.words.push(STR);
        self.words.push(f64::from(i));
    }

    fn intern(&mut self, s: &str) -> u32 {
        match self.index.get(s) {
            Some(&i) => i,
            None => {
                let i = self.strings.len() as u32;
                self.strings.push(s.to_owned());
                self.index.insert(s.to_owned(), i);
                i
            }
        }
    }

    fn string(&mut self, s: &str) {
        let i = self.intern(s);
        self.words.push(STR);
        self.words.push(f64::from(i));
    }

    fn num(&mut self, v: f64) {
        self.words.push(NUM);
        self.words.push(v);
    }

    /// Opens an array or object; the returned slot gets its count at `end`.
    fn open(&mut self, tag: f64) -> Compound<'_> {
        self.words.push(tag);
        let slot = self.words.len();
        self.words.push(0.0);
        Compound {
            tape: self,
            slot,
            count: 0,
        }
    }

    /// `{variant: …}` for externally tagged enum variants with data.
    fn open_variant(&mut self, variant: &'static str, tag: f64) -> Compound<'_> {
        self.words.push(OBJ);
        self.words.push(1.0);
        self.static_string(variant);
        self.open(tag)
    }
}

pub struct Compound<'a> {
    tape: &'a mut Tape,
    slot: usize,
    count: u32,
}

impl Compound<'_> {
    fn item<T: ?Sized + Serialize>(&mut self, v: &T) -> R {
        self.count += 1;
        v.serialize(&mut *self.tape)
    }
    fn field<T: ?Sized + Serialize>(&mut self, key: &'static str, v: &T) -> R {
        self.count += 1;
        self.tape.static_string(key);
        v.serialize(&mut *self.tape)
    }
    fn close(self) -> R {
        match self.tape.words.get_mut(self.slot) {
            Some(w) => {
                *w = f64::from(self.count);
                Ok(())
            }
            None => Err(TapeError("internal: tape slot missing".into())),
        }
    }
}

impl<'a> ser::Serializer for &'a mut Tape {
    type Ok = ();
    type Error = TapeError;
    type SerializeSeq = Compound<'a>;
    type SerializeTuple = Compound<'a>;
    type SerializeTupleStruct = Compound<'a>;
    type SerializeTupleVariant = Compound<'a>;
    type SerializeMap = Compound<'a>;
    type SerializeStruct = Compound<'a>;
    type SerializeStructVariant = Compound<'a>;

    fn serialize_bool(self, v: bool) -> R {
        self.words.push(if v { TRUE } else { FALSE });
        Ok(())
    }
    fn serialize_i8(self, v: i8) -> R {
        self.num(f64::from(v));
        Ok(())
    }
    fn serialize_i16(self, v: i16) -> R {
        self.num(f64::from(v));
        Ok(())
    }
    fn serialize_i32(self, v: i32) -> R {
        self.num(f64::from(v));
        Ok(())
    }
    fn serialize_i64(self, v: i64) -> R {
        self.num(v as f64);
        Ok(())
    }
    fn serialize_u8(self, v: u8) -> R {
        self.num(f64::from(v));
        Ok(())
    }
    fn serialize_u16(self, v: u16) -> R {
        self.num(f64::from(v));
        Ok(())
    }
    fn serialize_u32(self, v: u32) -> R {
        self.num(f64::from(v));
        Ok(())
    }
    fn serialize_u64(self, v: u64) -> R {
        self.num(v as f64);
        Ok(())
    }
    fn serialize_f32(self, v: f32) -> R {
        self.num(f64::from(v));
        Ok(())
    }
    fn serialize_f64(self, v: f64) -> R {
        self.num(v);
        Ok(())
    }
    fn serialize_char(self, v: char) -> R {
        self.string(v.encode_utf8(&mut [0; 4]));
        Ok(())
    }
    fn serialize_str(self, v: &str) -> R {
        self.string(v);
        Ok(())
    }
    fn serialize_bytes(self, v: &[u8]) -> R {
        let mut c = self.open(ARR);
        for b in v {
            c.item(b)?;
        }
        c.close()
    }
    fn serialize_none(self) -> R {
        self.words.push(NULL);
        Ok(())
    }
    fn serialize_some<T: ?Sized + Serialize>(self, v: &T) -> R {
        v.serialize(self)
    }
    fn serialize_unit(self) -> R {
        self.words.push(NULL);
        Ok(())
    }
    fn serialize_unit_struct(self, _: &'static str) -> R {
        self.words.push(NULL);
        Ok(())
    }
    fn serialize_unit_variant(self, _: &'static str, _: u32, variant: &'static str) -> R {
        self.static_string(variant);
        Ok(())
    }
    fn serialize_newtype_struct<T: ?Sized + Serialize>(self, _: &'static str, v: &T) -> R {
        v.serialize(self)
    }
    fn serialize_newtype_variant<T: ?Sized + Serialize>(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        v: &T,
    ) -> R {
        self.words.push(OBJ);
        self.words.push(1.0);
        self.static_string(variant);
        v.serialize(self)
    }
    fn serialize_seq(self, _: Option<usize>) -> Result<Compound<'a>, TapeError> {
        Ok(self.open(ARR))
    }
    fn serialize_tuple(self, _: usize) -> Result<Compound<'a>, TapeError> {
        Ok(self.open(ARR))
    }
    fn serialize_tuple_struct(self, _: &'static str, _: usize) -> Result<Compound<'a>, TapeError> {
        Ok(self.open(ARR))
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        _: usize,
    ) -> Result<Compound<'a>, TapeError> {
        Ok(self.open_variant(variant, ARR))
    }
    fn serialize_map(self, _: Option<usize>) -> Result<Compound<'a>, TapeError> {
        Ok(self.open(OBJ))
    }
    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Compound<'a>, TapeError> {
        Ok(self.open(OBJ))
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        _: usize,
    ) -> Result<Compound<'a>, TapeError> {
        Ok(self.open_variant(variant, OBJ))
    }
}

impl ser::SerializeSeq for Compound<'_> {
    type Ok = ();
    type Error = TapeError;
    fn serialize_element<T: ?Sized + Serialize>(&mut self, v: &T) -> R {
        self.item(v)
    }
    fn end(self) -> R {
        self.close()
    }
}
impl ser::SerializeTuple for Compound<'_> {
    type Ok = ();
    type Error = TapeError;
    fn serialize_element<T: ?Sized + Serialize>(&mut self, v: &T) -> R {
        self.item(v)
    }
    fn end(self) -> R {
        self.close()
    }
}
impl ser::SerializeTupleStruct for Compound<'_> {
    type Ok = ();
    type Error = TapeError;
    fn serialize_field<T: ?Sized + Serialize>(&mut self, v: &T) -> R {
        self.item(v)
    }
    fn end(self) -> R {
        self.close()
    }
}
impl ser::SerializeTupleVariant for Compound<'_> {
    type Ok = ();
    type Error = TapeError;
    fn serialize_field<T: ?Sized + Serialize>(&mut self, v: &T) -> R {
        self.item(v)
    }
    fn end(self) -> R {
        self.close()
    }
}
impl ser::SerializeMap for Compound<'_> {
    type Ok = ();
    type Error = TapeError;
    fn serialize_key<T: ?Sized + Serialize>(&mut self, k: &T) -> R {
        // A key and its value make one entry: count on the key only.
        self.count += 1;
        k.serialize(&mut *self.tape)
    }
    fn serialize_value<T: ?Sized + Serialize>(&mut self, v: &T) -> R {
        v.serialize(&mut *self.tape)
    }
    fn end(self) -> R {
        self.close()
    }
}
impl ser::SerializeStruct for Compound<'_> {
    type Ok = ();
    type Error = TapeError;
    fn serialize_field<T: ?Sized + Serialize>(&mut self, key: &'static str, v: &T) -> R {
        self.field(key, v)
    }
    fn end(self) -> R {
        self.close()
    }
}
impl ser::SerializeStructVariant for Compound<'_> {
    type Ok = ();
    type Error = TapeError;
    fn serialize_field<T: ?Sized + Serialize>(&mut self, key: &'static str, v: &T) -> R {
        self.field(key, v)
    }
    fn end(self) -> R {
        self.close()
    }
}
