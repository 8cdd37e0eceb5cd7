//! How a record is declared once and becomes everything else.
//!
//! Each record type of `graph()` / `trace()` is written once, with one of the
//! macros below (`names!`, `record!`, `tagged!`, `field_choice!`,
//! `value_choice!`). From that one declaration the macro makes:
//! - the Rust type the engine builds (a plain struct or enum);
//! - its JSON (`serde::Serialize`): what serde-wasm-bindgen and `to_json` write;
//! - its tape writing ([`Wire`]): the flat words `crate/js/records.js` decodes;
//! - its description ([`Decl`], [`Ty`]): what `gen_js` and `gen_ts` turn into
//!   the JS decoder (`crate/js/records.js`) and the TypeScript types
//!   (`crate/js/protocol.d.ts`). A cargo test fails when those files are not
//!   what the declarations give (`scripts/gen-protocol.sh` rewrites them).
//!
//! Field names: a field's JSON name is its Rust name, or the literal after
//! `as` (`pub input_nr as "inputNr": usize`). `#[json(omit_none)]` on an
//! `Option` field leaves the key out when it is `None` (instead of `null`);
//! `#[json(flatten)]` merges a record's (or a field choice's) keys into the
//! enclosing object.

use serde::ser::SerializeMap;

use super::tape::Tape;

/// How a value is written on the tape and typed for JS.
#[derive(Clone, Debug, PartialEq)]
pub enum Ty {
    /// A non-negative integer (ids, counts, dims): one word; JS `number`.
    Int,
    /// One word, 0 or 1.
    Bool,
    /// An index into the tape's string table.
    Str,
    /// A tensor's values, nested lists as `tolist()` (`Values` in JS):
    /// `ndim, dims…, elements…`.
    Values,
    /// `-1` for null, else the value (which never starts with `-1`).
    Opt(Box<Ty>),
    /// The length, then the items.
    List(Box<Ty>),
    /// A declared type, by its Rust name (see [`Decl`]).
    Ref(&'static str),
}

/// How a field's key appears in its object.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Always present (`null` for `None`).
    Plain,
    /// An `Option` whose key is absent when it is `None`.
    OmitNone,
    /// A record or field choice (possibly in an `Option`) whose keys are
    /// merged into the enclosing object (none when it is `None`).
    Flatten,
}

#[derive(Clone, Debug)]
pub struct Field {
    pub json: &'static str,
    pub doc: &'static str,
    pub ty: Ty,
    pub mode: Mode,
}

/// A variant of a tagged union (its `tag` value and TypeScript interface
/// name) or of a choice (tag and name empty).
#[derive(Clone, Debug)]
pub struct Variant {
    pub rust: &'static str,
    pub tag: &'static str,
    pub ts: &'static str,
    pub doc: &'static str,
    pub fields: Vec<Field>,
}

#[derive(Clone, Debug)]
pub enum Shape {
    /// A string from a fixed set (a TypeScript union of literals).
    Names(Vec<&'static str>),
    /// An object with these fields, in this order.
    Record(Vec<Field>),
    /// Objects told apart by the key `tag` (the tape: the variant's index).
    Tagged {
        tag: &'static str,
        variants: Vec<Variant>,
    },
    /// One of several field sets, always flattened into the enclosing
    /// object (the tape: the variant's index, then its fields).
    FieldChoice(Vec<Variant>),
    /// One of several values, untagged in JSON (the tape: the variant's
    /// index, then the value).
    ValueChoice(Vec<(&'static str, Ty)>),
}

/// One declared type.
#[derive(Clone, Debug)]
pub struct Decl {
    pub rust: &'static str,
    /// Its TypeScript name.
    pub ts: &'static str,
    pub doc: &'static str,
    pub shape: Shape,
}

/// A value that can be written on the record tape.
pub trait Wire {
    /// Its description (what the JS decoder reads, what TypeScript calls it).
    fn ty() -> Ty;
    fn write(&self, t: &mut Tape);
}

/// A declared type: its description.
pub trait Declared {
    fn decl() -> Decl;
}

/// The keys a value contributes to an enclosing object (`#[json(flatten)]`).
pub trait SerializeFields {
    fn serialize_fields<M: SerializeMap>(&self, m: &mut M) -> Result<(), M::Error>;
}

impl<T: SerializeFields> SerializeFields for Option<T> {
    fn serialize_fields<M: SerializeMap>(&self, m: &mut M) -> Result<(), M::Error> {
        match self {
            Some(v) => v.serialize_fields(m),
            None => Ok(()),
        }
    }
}

/// A field's JSON name: its Rust name, or the literal given after `as`.
macro_rules! json_name {
    ($field:ident) => {
        stringify!($field)
    };
    ($field:ident $json:literal) => {
        $json
    };
}

macro_rules! field_mode {
    () => {
        $crate::protocol::schema::Mode::Plain
    };
    (omit_none) => {
        $crate::protocol::schema::Mode::OmitNone
    };
    (flatten) => {
        $crate::protocol::schema::Mode::Flatten
    };
}

/// Writes one field into a serde map (`$m`: a `&mut` to it), as its mode says.
macro_rules! serialize_field {
    ($m:ident, $value:expr, $json:expr,) => {
        $m.serialize_entry($json, $value)?
    };
    ($m:ident, $value:expr, $json:expr, omit_none) => {
        if let Some(v) = $value {
            $m.serialize_entry($json, v)?
        }
    };
    ($m:ident, $value:expr, $json:expr, flatten) => {
        $crate::protocol::schema::SerializeFields::serialize_fields($value, $m)?
    };
}

macro_rules! field_decl {
    ($field:ident $($json:literal)?, $ty:ty, [$($doc:literal)*], $($mode:ident)?) => {
        $crate::protocol::schema::Field {
            json: json_name!($field $($json)?),
            doc: concat!($($doc, "\n"),*),
            ty: <$ty as $crate::protocol::schema::Wire>::ty(),
            mode: field_mode!($($mode)?),
        }
    };
}

/// A string from a fixed set: `pub enum HookKind { Tensor = "tensor", … }`.
/// Written on the tape as a static string (found by address, no hashing).
macro_rules! names {
    (
        $(#[doc = $doc:literal])*
        pub enum $name:ident { $($(#[doc = $vdoc:literal])* $variant:ident = $text:literal,)* }
    ) => {
        $(#[doc = $doc])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub enum $name { $($(#[doc = $vdoc])* $variant,)* }

        impl $name {
            pub const ALL: &'static [$name] = &[$($name::$variant),*];
            /// Its name in JSON and JS.
            pub fn as_str(self) -> &'static str {
                match self { $($name::$variant => $text,)* }
            }
        }

        impl serde::Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(self.as_str())
            }
        }

        impl $crate::protocol::schema::Wire for $name {
            fn ty() -> $crate::protocol::schema::Ty {
                $crate::protocol::schema::Ty::Ref(stringify!($name))
            }
            #[inline]
            fn write(&self, t: &mut $crate::protocol::tape::Tape) {
                t.static_str(self.as_str());
            }
        }

        impl $crate::protocol::schema::Declared for $name {
            fn decl() -> $crate::protocol::schema::Decl {
                $crate::protocol::schema::Decl {
                    rust: stringify!($name),
                    ts: stringify!($name),
                    doc: concat!($($doc, "\n"),*),
                    shape: $crate::protocol::schema::Shape::Names(vec![$($text),*]),
                }
            }
        }
    };
}

/// An object: `pub struct NextEdge { pub node: Option<NodeId>, … }`.
macro_rules! record {
    (
        $(#[doc = $doc:literal])*
        pub struct $name:ident $(<$lt:lifetime>)? {
            $(
                $(#[doc = $fdoc:literal])*
                $(#[json($mode:ident)])?
                pub $field:ident $(as $json:literal)? : $ty:ty,
            )*
        }
    ) => {
        $(#[doc = $doc])*
        #[derive(Clone, Debug)]
        pub struct $name $(<$lt>)? {
            $($(#[doc = $fdoc])* pub $field: $ty,)*
        }

        impl $(<$lt>)? $crate::protocol::schema::SerializeFields for $name $(<$lt>)? {
            fn serialize_fields<M: serde::ser::SerializeMap>(&self, m: &mut M) -> Result<(), M::Error> {
                $(serialize_field!(m, &self.$field, json_name!($field $($json)?), $($mode)?);)*
                Ok(())
            }
        }

        impl $(<$lt>)? serde::Serialize for $name $(<$lt>)? {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                use serde::ser::SerializeMap;
                let mut m = s.serialize_map(None)?;
                $crate::protocol::schema::SerializeFields::serialize_fields(self, &mut m)?;
                m.end()
            }
        }

        impl $(<$lt>)? $crate::protocol::schema::Wire for $name $(<$lt>)? {
            fn ty() -> $crate::protocol::schema::Ty {
                $crate::protocol::schema::Ty::Ref(stringify!($name))
            }
            #[inline]
            fn write(&self, t: &mut $crate::protocol::tape::Tape) {
                $($crate::protocol::schema::Wire::write(&self.$field, t);)*
            }
        }

        impl $(<$lt>)? $crate::protocol::schema::Declared for $name $(<$lt>)? {
            fn decl() -> $crate::protocol::schema::Decl {
                $crate::protocol::schema::Decl {
                    rust: stringify!($name),
                    ts: stringify!($name),
                    doc: concat!($($doc, "\n"),*),
                    shape: $crate::protocol::schema::Shape::Record(vec![
                        $(field_decl!($field $($json)?, $ty, [$($fdoc)*], $($mode)?),)*
                    ]),
                }
            }
        }
    };
}

/// Objects told apart by a tag key: `pub enum Event as TraceEvent, tag
/// "type" { Op "op" as OpEvent { node: NodeId, … }, … }` (struct variants;
/// `OpEvent` is the variant's TypeScript interface).
macro_rules! tagged {
    (
        $(#[doc = $doc:literal])*
        pub enum $name:ident as $ts:ident, tag $tag:literal {
            $(
                $(#[doc = $vdoc:literal])*
                $variant:ident $vtag:literal as $vts:ident {
                    $(
                        $(#[doc = $fdoc:literal])*
                        $(#[json($mode:ident)])?
                        $field:ident $(as $json:literal)? : $ty:ty,
                    )*
                },
            )*
        }
    ) => {
        $(#[doc = $doc])*
        #[derive(Clone, Debug)]
        pub enum $name {
            $($(#[doc = $vdoc])* $variant { $($(#[doc = $fdoc])* $field: $ty,)* },)*
        }

        impl serde::Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                use serde::ser::SerializeMap;
                let mut map = s.serialize_map(None)?;
                let m = &mut map;
                match self {
                    $($name::$variant { $($field),* } => {
                        m.serialize_entry($tag, $vtag)?;
                        $(serialize_field!(m, $field, json_name!($field $($json)?), $($mode)?);)*
                    })*
                }
                map.end()
            }
        }

        impl $crate::protocol::schema::Wire for $name {
            fn ty() -> $crate::protocol::schema::Ty {
                $crate::protocol::schema::Ty::Ref(stringify!($name))
            }
            fn write(&self, t: &mut $crate::protocol::tape::Tape) {
                /// The variants' indexes on the tape (declaration order).
                #[allow(dead_code)]
                enum Index { $($variant),* }
                match self {
                    $($name::$variant { $($field),* } => {
                        t.index(Index::$variant as u32);
                        $($crate::protocol::schema::Wire::write($field, t);)*
                    })*
                }
            }
        }

        impl $crate::protocol::schema::Declared for $name {
            fn decl() -> $crate::protocol::schema::Decl {
                $crate::protocol::schema::Decl {
                    rust: stringify!($name),
                    ts: stringify!($ts),
                    doc: concat!($($doc, "\n"),*),
                    shape: $crate::protocol::schema::Shape::Tagged {
                        tag: $tag,
                        variants: vec![$($crate::protocol::schema::Variant {
                            rust: stringify!($variant),
                            tag: $vtag,
                            ts: stringify!($vts),
                            doc: concat!($($vdoc, "\n"),*),
                            fields: vec![$(field_decl!($field $($json)?, $ty, [$($fdoc)*], $($mode)?),)*],
                        }),*],
                    },
                }
            }
        }
    };
}

/// One of several field sets, flattened into the enclosing object; tuple
/// variants whose positions are named: `Tensor(tensor: TensorId, …)`.
macro_rules! field_choice {
    (
        $(#[doc = $doc:literal])*
        pub enum $name:ident {
            $(
                $(#[doc = $vdoc:literal])*
                $variant:ident(
                    $(
                        $(#[doc = $fdoc:literal])*
                        $(#[json($mode:ident)])?
                        $field:ident $(as $json:literal)? : $ty:ty
                    ),*
                ),
            )*
        }
    ) => {
        $(#[doc = $doc])*
        #[derive(Clone, Debug)]
        pub enum $name {
            $($(#[doc = $vdoc])* $variant($($(#[doc = $fdoc])* $ty),*),)*
        }

        impl $crate::protocol::schema::SerializeFields for $name {
            fn serialize_fields<M: serde::ser::SerializeMap>(&self, m: &mut M) -> Result<(), M::Error> {
                match self {
                    $($name::$variant($($field),*) => {
                        $(serialize_field!(m, $field, json_name!($field $($json)?), $($mode)?);)*
                    })*
                }
                Ok(())
            }
        }

        impl $crate::protocol::schema::Wire for $name {
            fn ty() -> $crate::protocol::schema::Ty {
                $crate::protocol::schema::Ty::Ref(stringify!($name))
            }
            fn write(&self, t: &mut $crate::protocol::tape::Tape) {
                #[allow(dead_code)]
                enum Index { $($variant),* }
                match self {
                    $($name::$variant($($field),*) => {
                        t.index(Index::$variant as u32);
                        $($crate::protocol::schema::Wire::write($field, t);)*
                    })*
                }
            }
        }

        impl $crate::protocol::schema::Declared for $name {
            fn decl() -> $crate::protocol::schema::Decl {
                $crate::protocol::schema::Decl {
                    rust: stringify!($name),
                    ts: stringify!($name),
                    doc: concat!($($doc, "\n"),*),
                    shape: $crate::protocol::schema::Shape::FieldChoice(vec![
                        $($crate::protocol::schema::Variant {
                            rust: stringify!($variant),
                            tag: "",
                            ts: "",
                            doc: concat!($($vdoc, "\n"),*),
                            fields: vec![$(field_decl!($field $($json)?, $ty, [$($fdoc)*], $($mode)?),)*],
                        }),*
                    ]),
                }
            }
        }
    };
}

/// One of several values, untagged in JSON: `One(Option<Array>), …`.
macro_rules! value_choice {
    (
        $(#[doc = $doc:literal])*
        pub enum $name:ident { $($(#[doc = $vdoc:literal])* $variant:ident($ty:ty),)* }
    ) => {
        $(#[doc = $doc])*
        #[derive(Clone, Debug)]
        pub enum $name { $($(#[doc = $vdoc])* $variant($ty),)* }

        impl serde::Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                match self { $($name::$variant(v) => serde::Serialize::serialize(v, s),)* }
            }
        }

        impl $crate::protocol::schema::Wire for $name {
            fn ty() -> $crate::protocol::schema::Ty {
                $crate::protocol::schema::Ty::Ref(stringify!($name))
            }
            fn write(&self, t: &mut $crate::protocol::tape::Tape) {
                #[allow(dead_code)]
                enum Index { $($variant),* }
                match self {
                    $($name::$variant(v) => {
                        t.index(Index::$variant as u32);
                        $crate::protocol::schema::Wire::write(v, t);
                    })*
                }
            }
        }

        impl $crate::protocol::schema::Declared for $name {
            fn decl() -> $crate::protocol::schema::Decl {
                $crate::protocol::schema::Decl {
                    rust: stringify!($name),
                    ts: stringify!($name),
                    doc: concat!($($doc, "\n"),*),
                    shape: $crate::protocol::schema::Shape::ValueChoice(vec![
                        $((stringify!($variant), <$ty as $crate::protocol::schema::Wire>::ty())),*
                    ]),
                }
            }
        }
    };
}
