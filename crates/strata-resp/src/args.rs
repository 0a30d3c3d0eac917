//! The arguments of one request, borrowed from wherever they live (the input
//! buffer, the inline scratch buffer, or a queued `MULTI` command), and an
//! owned copy for queuing.

/// Arguments of one request; index 0 is the command name.
#[derive(Debug, Clone, Copy)]
pub struct Args<'a> {
    buf: &'a [u8],
    ranges: &'a [(usize, usize)],
}

impl<'a> Args<'a> {
    /// Arguments at `ranges` (start, end offsets) inside `buf`.
    ///
    /// Offsets outside `buf` read as empty arguments rather than panicking.
    pub fn new(buf: &'a [u8], ranges: &'a [(usize, usize)]) -> Self {
        Self { buf, ranges }
    }

    /// Number of arguments, including the command name.
    pub fn len(&self) -> usize {
        self.ranges.len()
    }

    /// True when there are no arguments at all.
    pub fn is_empty(&self) -> bool {
        self.ranges.is_empty()
    }

    /// Argument `i`, or an empty slice past the end (callers check arity first).
    pub fn get(&self, i: usize) -> &'a [u8] {
        self.ranges
            .get(i)
            .and_then(|&(start, end)| self.buf.get(start..end))
            .unwrap_or(&[])
    }

    /// Arguments from `from` on.
    pub fn iter_from(&self, from: usize) -> impl Iterator<Item = &'a [u8]> + 'a {
        let this = *self;
        (from..self.len()).map(move |i| this.get(i))
    }

    /// The arguments from `from` on, as a request of their own (`ACL
    /// DRYRUN`'s command); empty past the end.
    pub fn tail(&self, from: usize) -> Args<'a> {
        Args {
            buf: self.buf,
            ranges: self.ranges.get(from..).unwrap_or(&[]),
        }
    }

    /// Bytes held by the arguments (for queue accounting).
    pub fn byte_len(&self) -> usize {
        self.ranges.iter().map(|&(s, e)| e.saturating_sub(s)).sum()
    }

    /// An owned copy.
    pub fn to_owned_args(&self) -> OwnedArgs {
        let mut buf = Vec::with_capacity(self.byte_len());
        let mut ranges = Vec::with_capacity(self.len());
        for arg in self.iter_from(0) {
            let start = buf.len();
            buf.extend_from_slice(arg);
            ranges.push((start, buf.len()));
        }
        OwnedArgs { buf, ranges }
    }
}

/// Arguments copied out of the input (a command queued by `MULTI`).
#[derive(Debug, Clone, Default)]
pub struct OwnedArgs {
    buf: Vec<u8>,
    ranges: Vec<(usize, usize)>,
}

impl OwnedArgs {
    /// A borrowed view.
    pub fn args(&self) -> Args<'_> {
        Args::new(&self.buf, &self.ranges)
    }

    /// Approximate memory held.
    pub fn footprint(&self) -> usize {
        self.buf.capacity() + self.ranges.capacity() * std::mem::size_of::<(usize, usize)>()
    }
}

/// Runs `f` on [`Args`] made of `words` (unit tests build commands so).
#[cfg(test)]
pub(crate) fn with_words<R>(words: &[&[u8]], f: impl FnOnce(&Args<'_>) -> R) -> R {
    let mut buf = Vec::new();
    let mut ranges = Vec::new();
    for w in words {
        ranges.push((buf.len(), buf.len() + w.len()));
        buf.extend_from_slice(w);
    }
    f(&Args::new(&buf, &ranges))
}
