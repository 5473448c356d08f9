//! NEON, the configuration language of wireplan (and of Nette).
//!
//! [`decode`] turns text into a [`Value`] tree with byte spans, following nette/neon 3.4;
//! [`to_json`] gives the canonical JSON of `wireplan neon decode`. Only this module touches pest.

mod value;

pub use value::{Array, Entity, Entry, Key, Kind, Value};
