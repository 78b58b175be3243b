//! A stand-in for `watto` 0.2.0, the crate symbolic-ppdb 13.9.0 reads and writes its
//! PortablePdbCache with. Debian does not package watto, so bench/symbolic_compare.sh builds
//! symbolic-ppdb against this crate instead. A comparison has to give the peer its real speed and
//! its real bytes, so this follows watto 0.2.0 wherever symbolic-ppdb can tell the difference:
//!
//! - Reads are zero-copy: `Pod` hands out references and slices into the caller's buffer once
//!   the length and the pointer's alignment check out, and `StringTable::read` returns a `&str`
//!   borrowed from the string bytes. Nothing is copied or decoded ahead of a lookup.
//! - The string table stores every distinct string once, as its LEB128 byte length followed by
//!   its UTF-8 bytes, at the offset the buffer had when the string was first inserted. The empty
//!   string is an ordinary string: its first insert stores one byte (length 0) and returns that
//!   byte's offset, so a document whose name is empty reads back as "" (watto 0.1 returned
//!   `usize::MAX` for it and stored nothing, so symbolic's lookups into such a document missed).
//! - Deduplication is a hash table of offsets only, as 0.2.0's `hashbrown::HashTable<usize>`:
//!   no owned copy of a string is kept; a probe hashes the bytes and compares them with the
//!   bytes already in the buffer. symbolic-ppdb inserts a document name for every sequence
//!   point, so this is on its conversion's hot path, and a `HashMap<String, usize>` with std's
//!   SipHash made whole conversions 6-9% slower (issue 41).
//!
//! Only what symbolic-ppdb uses is here (`Pod`, `align_to`, `Writer`, `StringTable`), plus the
//! two small `*_to_type` helpers of 0.2.0; `StringTable::from_bytes` is left out.
use std::hash::BuildHasher;
use std::io::{self, Write};
use std::str::Utf8Error;
use std::{fmt, mem, slice};

use hashbrown::hash_map::{DefaultHashBuilder, HashMap, RawEntryMut};

/// True when `bytes` starts at a multiple of `align` (a power of two; anything else is a bug in
/// the caller, as in watto).
fn starts_aligned(bytes: &[u8], align: usize) -> bool {
    assert!(align.is_power_of_two(), "watto shim: alignment {align} is not a power of two");
    bytes.as_ptr() as usize & (align - 1) == 0
}

/// Plain old data: a type with a fixed layout for which every bit pattern is a valid value, so
/// that it can be viewed in place inside a byte buffer and written out as its bytes.
///
/// # Safety
/// Implement it only for `repr(C)` (or primitive) types without invalid bit patterns.
pub unsafe trait Pod {
    /// The value's bytes, in place.
    fn as_bytes(&self) -> &[u8] {
        // SAFETY: a Pod value is plain bytes of size_of_val(self).
        unsafe { slice::from_raw_parts(self as *const Self as *const u8, mem::size_of_val(self)) }
    }

    /// A reference to the value that is exactly `bytes`, when they are that long and aligned.
    fn ref_from_bytes(bytes: &[u8]) -> Option<&Self>
    where
        Self: Sized,
    {
        if bytes.len() != mem::size_of::<Self>() || !starts_aligned(bytes, mem::align_of::<Self>()) {
            return None;
        }
        // SAFETY: size and alignment checked; every bit pattern is a valid Self.
        Some(unsafe { &*(bytes.as_ptr() as *const Self) })
    }

    /// A reference to the value at the start of `bytes`, and the bytes after it.
    fn ref_from_prefix(bytes: &[u8]) -> Option<(&Self, &[u8])>
    where
        Self: Sized,
    {
        if bytes.len() < mem::size_of::<Self>() || !starts_aligned(bytes, mem::align_of::<Self>()) {
            return None;
        }
        let (head, rest) = bytes.split_at(mem::size_of::<Self>());
        // SAFETY: as in ref_from_bytes.
        Some((unsafe { &*(head.as_ptr() as *const Self) }, rest))
    }

    /// The values that `bytes` holds, when its length is a multiple of the size and it is aligned.
    fn slice_from_bytes(bytes: &[u8]) -> Option<&[Self]>
    where
        Self: Sized,
    {
        let size = mem::size_of::<Self>();
        assert_ne!(size, 0, "watto shim: a zero-sized Pod has no slices");
        if bytes.len() % size != 0 || !starts_aligned(bytes, mem::align_of::<Self>()) {
            return None;
        }
        // SAFETY: the length is a whole number of aligned values.
        Some(unsafe { slice::from_raw_parts(bytes.as_ptr() as *const Self, bytes.len() / size) })
    }

    /// The first `count` values of `bytes`, and the bytes after them.
    fn slice_from_prefix(bytes: &[u8], count: usize) -> Option<(&[Self], &[u8])>
    where
        Self: Sized,
    {
        let size = mem::size_of::<Self>();
        assert_ne!(size, 0, "watto shim: a zero-sized Pod has no slices");
        let len = size.checked_mul(count)?;
        if bytes.len() < len || !starts_aligned(bytes, mem::align_of::<Self>()) {
            return None;
        }
        let (head, rest) = bytes.split_at(len);
        // SAFETY: `count` aligned values fit in `head`.
        Some((unsafe { slice::from_raw_parts(head.as_ptr() as *const Self, count) }, rest))
    }
}

unsafe impl<T: Pod> Pod for [T] {}
unsafe impl<T: Pod, const N: usize> Pod for [T; N] {}

macro_rules! pod_primitives {
    ($($t:ty),*) => { $(unsafe impl Pod for $t {})* };
}
pod_primitives!(u8, i8, u16, i16, u32, i32, u64, i64, u128, i128, usize, isize, f32, f64);

/// Splits `bytes` into the padding up to the first address that is a multiple of `align`, and
/// the rest; `None` when `bytes` ends before that address.
pub fn align_to(bytes: &[u8], align: usize) -> Option<(&[u8], &[u8])> {
    let pad = bytes.as_ptr().align_offset(align);
    if pad > bytes.len() {
        return None;
    }
    Some(bytes.split_at(pad))
}

/// `align_to` with the alignment of `T`.
pub fn align_to_type<T>(bytes: &[u8]) -> Option<(&[u8], &[u8])> {
    align_to(bytes, mem::align_of::<T>())
}

/// A `Write` that counts the bytes written through it, so that it can pad the output with
/// zeros up to an alignment.
#[derive(Debug)]
pub struct Writer<W: Write> {
    inner: W,
    written: usize,
}

impl<W: Write> Writer<W> {
    /// Wraps `inner`, counting from 0.
    pub fn new(inner: W) -> Self {
        Self { inner, written: 0 }
    }

    /// The wrapped writer.
    pub fn into_inner(self) -> W {
        self.inner
    }

    /// Writes zeros until the count is a multiple of `align` (a power of two); returns how many.
    pub fn align_to(&mut self, align: usize) -> io::Result<usize> {
        assert!(align.is_power_of_two(), "watto shim: alignment {align} is not a power of two");
        const ZEROS: [u8; 16] = [0; 16];
        let pad = (align - self.written % align) % align;
        let mut left = pad;
        while left > 0 {
            let n = left.min(ZEROS.len());
            self.write_all(&ZEROS[..n])?;
            left -= n;
        }
        Ok(pad)
    }

    /// `align_to` with the alignment of `T`.
    pub fn align_to_type<T>(&mut self) -> io::Result<usize> {
        self.align_to(mem::align_of::<T>())
    }
}

impl<W: Write> Write for Writer<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.written += n;
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

/// Why a string could not be read back from a string table's bytes.
#[derive(Debug)]
pub enum ReadStringError {
    /// The length prefix is cut off or longer than a u64.
    Leb128,
    /// The string's bytes are not UTF-8.
    Utf8(Utf8Error),
    /// The offset, or the length after it, reaches past the end of the bytes.
    OutOfBounds,
}

impl fmt::Display for ReadStringError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Leb128 => f.write_str("string table: bad LEB128 length prefix"),
            Self::Utf8(e) => write!(f, "string table: string is not UTF-8 ({e})"),
            Self::OutOfBounds => f.write_str("string table: offset or length out of bounds"),
        }
    }
}

impl std::error::Error for ReadStringError {}

/// Strings without duplicates, laid out as their serialized bytes: each distinct string once,
/// its LEB128 byte length then its UTF-8 bytes. `insert` returns the offset to `read` it at.
#[derive(Clone, Default)]
pub struct StringTable {
    hasher: DefaultHashBuilder,
    /// The offset of every stored string; its key is found by hashing the string's bytes and
    /// compared against the bytes in `buffer` (the map's own hasher is never used).
    offsets: HashMap<usize, (), DefaultHashBuilder>,
    buffer: Vec<u8>,
}

impl fmt::Debug for StringTable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map()
            .entries(self.offsets.keys().map(|&o| (o, Self::read(&self.buffer, o).unwrap_or("<bad>"))))
            .finish()
    }
}

/// The bytes of the string stored at `offset`, and the offset just past them.
fn entry_at(buffer: &[u8], offset: usize) -> Result<(&[u8], usize), ReadStringError> {
    if offset > buffer.len() {
        return Err(ReadStringError::OutOfBounds);
    }
    let mut pos = offset;
    let (mut len, mut shift) = (0u64, 0u32);
    loop {
        let byte = *buffer.get(pos).ok_or(ReadStringError::Leb128)?;
        pos += 1;
        let low = u64::from(byte & 0x7f);
        // a 10th byte may only carry the top bit of a u64
        if shift >= 64 || (shift == 63 && low > 1) {
            return Err(ReadStringError::Leb128);
        }
        len |= low << shift;
        shift += 7;
        if byte & 0x80 == 0 {
            break;
        }
    }
    let end = usize::try_from(len)
        .ok()
        .and_then(|len| pos.checked_add(len))
        .ok_or(ReadStringError::OutOfBounds)?;
    Ok((buffer.get(pos..end).ok_or(ReadStringError::OutOfBounds)?, end))
}

/// The bytes of a string this table stored itself (so its entry is well-formed).
fn stored(buffer: &[u8], offset: usize) -> &[u8] {
    match entry_at(buffer, offset) {
        Ok((bytes, _)) => bytes,
        Err(e) => panic!("watto shim: string table entry at {offset}: {e}"),
    }
}

impl StringTable {
    /// An empty table.
    pub fn new() -> Self {
        Self::default()
    }

    /// Stores `s` unless it is stored already; returns its offset either way.
    pub fn insert(&mut self, s: &str) -> usize {
        let Self { hasher, offsets, buffer } = self;
        let bytes = s.as_bytes();
        let hash = hasher.hash_one(bytes);
        match offsets.raw_entry_mut().from_hash(hash, |&o| stored(buffer, o) == bytes) {
            RawEntryMut::Occupied(found) => *found.key(),
            RawEntryMut::Vacant(slot) => {
                let offset = buffer.len();
                let mut len = bytes.len() as u64;
                loop {
                    let low = (len & 0x7f) as u8;
                    len >>= 7;
                    buffer.push(if len == 0 { low } else { low | 0x80 });
                    if len == 0 {
                        break;
                    }
                }
                buffer.extend_from_slice(bytes);
                let buffer: &Vec<u8> = buffer;
                // a growing table rehashes its keys: from the bytes they point at
                slot.insert_with_hasher(hash, offset, (), |&o| hasher.hash_one(stored(buffer, o)));
                offset
            }
        }
    }

    /// The stored strings' bytes.
    pub fn as_bytes(&self) -> &[u8] {
        &self.buffer
    }

    /// The stored strings' bytes, consuming the table.
    pub fn into_bytes(self) -> Vec<u8> {
        self.buffer
    }

    /// The string at `offset` of a table's bytes, borrowed from them.
    pub fn read(buffer: &[u8], offset: usize) -> Result<&str, ReadStringError> {
        let (bytes, _) = entry_at(buffer, offset)?;
        std::str::from_utf8(bytes).map_err(ReadStringError::Utf8)
    }
}
