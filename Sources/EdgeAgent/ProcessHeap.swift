import CMalloc

/// What glibc's malloc holds for this process: the bytes the program has allocated and not
/// freed, and the freed bytes malloc keeps in its arenas for reuse instead of returning them to
/// the kernel. Both count in the process's anonymous memory; only the first is the program's.
/// A leak grows `inUse`; fragmentation and per-thread arenas grow `retainedFree` (issue #30
/// item 5: the soak tells them apart by these, scraped from /metrics).
public struct ProcessHeap: Sendable, Equatable {
    /// Allocated and not freed: small chunks in the arenas plus chunks malloc mmapped on their own.
    public var inUse: Int
    /// Freed but kept by malloc in its arenas.
    public var retainedFree: Int

    /// One reading. mallinfo2 walks every arena's free lists under their locks: a scrape's cost,
    /// not a per-frame one.
    public static func current() -> ProcessHeap {
        let info = mallinfo2()
        return ProcessHeap(inUse: Int(info.uordblks) + Int(info.hblkhd), retainedFree: Int(info.fordblks))
    }
}
