/// Decodes a QR code (Model 2, versions 1-40) from its grid of modules, for the codes zbar finds
/// but cannot finish (SCN-4): zbar has no Hanzi mode (GB 2312 text, common on Chinese codes) and
/// gives up on codes whose finder patterns its line clustering does not accept (heavy ink bleed,
/// no quiet zone). `QRRectifier` puts such a code upright at a known module size; this reads
/// the modules: format and version information, the data mask, the codewords, Reed-Solomon
/// correction per block and the segments (ISO/IEC 18004 §7-8, written from the standard).
///
/// A grid read wrongly gives no text rather than a wrong one, as far as Reed-Solomon can tell:
/// every block must pass with its syndromes recomputed after correction, and the small codes
/// whose standard reserves codewords for misdecode detection correct only what the rest allows.
struct QRModuleDecoder {
    /// What a code carried.
    struct Content: Equatable {
        var bytes: [UInt8]
        var text: String
        var encoding: String
        /// One symbol of a structured-append sequence (its share of the message only).
        var structuredAppend: Bool
        /// FNC1 mode (GS1): the text is GS1 element data with GS separators.
        var gs1 = false
    }

    let dimension: Int
    /// Row-major, true for a dark module.
    let modules: [Bool]

    init?(dimension: Int, modules: [Bool]) {
        guard dimension >= 21, dimension <= 177, (dimension - 17) % 4 == 0, modules.count == dimension * dimension else { return nil }
        self.dimension = dimension
        self.modules = modules
    }

    var version: Int { (dimension - 17) / 4 }

    func dark(_ x: Int, _ y: Int) -> Bool { modules[y * dimension + x] }

    /// The content, or nil when the grid is not a readable QR code.
    func decode() -> Content? {
        guard let format = formatInformation() else { return nil }
        if version >= 7 {
            // The size was estimated from the finder spacing: the version blocks must agree.
            guard versionInformation() == version else { return nil }
        }
        let codewords = readCodewords(mask: format.mask)
        guard let data = correctedData(codewords, level: format.level) else { return nil }
        return QRSegments.parse(data, version: version)
    }

    // MARK: - Format and version information

    /// Error-correction levels in the order of the format information's two bits (M=00, L=01, H=10, Q=11).
    enum Level: Int { case m = 0, l = 1, h = 2, q = 3 }

    /// The level and mask from the better of the two copies, within 3 bit errors of a valid word.
    func formatInformation() -> (level: Level, mask: Int)? {
        let n = dimension
        var first = 0, second = 0
        func bit(_ value: inout Int, _ x: Int, _ y: Int) { value = value << 1 | (dark(x, y) ? 1 : 0) }
        for x in 0...5 { bit(&first, x, 8) }
        bit(&first, 7, 8); bit(&first, 8, 8); bit(&first, 8, 7)
        for y in stride(from: 5, through: 0, by: -1) { bit(&first, 8, y) }
        for y in stride(from: n - 1, through: n - 7, by: -1) { bit(&second, 8, y) }
        for x in (n - 8)..<n { bit(&second, x, 8) }
        var best: (distance: Int, data: Int)?
        for data in 0..<32 {
            let word = Self.bch(data, bits: 10, generator: 0x537) ^ 0x5412
            let distance = min((word ^ first).nonzeroBitCount, (word ^ second).nonzeroBitCount)
            if distance < best?.distance ?? Int.max { best = (distance, data) }
        }
        guard let best, best.distance <= 3, let level = Level(rawValue: best.data >> 3) else { return nil }
        return (level, best.data & 7)
    }

    /// The version from either version block (versions 7-40), within 3 bit errors.
    func versionInformation() -> Int? {
        let n = dimension
        var topRight = 0, bottomLeft = 0
        for i in stride(from: 5, through: 0, by: -1) {
            for j in stride(from: n - 9, through: n - 11, by: -1) {
                topRight = topRight << 1 | (dark(j, i) ? 1 : 0)
                bottomLeft = bottomLeft << 1 | (dark(i, j) ? 1 : 0)
            }
        }
        var best: (distance: Int, version: Int)?
        for v in 7...40 {
            let word = Self.bch(v, bits: 12, generator: 0x1F25)
            let distance = min((word ^ topRight).nonzeroBitCount, (word ^ bottomLeft).nonzeroBitCount)
            if distance < best?.distance ?? Int.max { best = (distance, v) }
        }
        guard let best, best.distance <= 3 else { return nil }
        return best.version
    }

    /// `data` followed by its BCH remainder of `bits` bits by `generator`.
    /// `generator` has degree `bits`; `data` has at most 6 bits (a version, or level and mask).
    static func bch(_ data: Int, bits: Int, generator: Int) -> Int {
        var remainder = data << bits
        for i in stride(from: bits + 5, through: bits, by: -1) {
            if remainder & (1 << i) != 0 { remainder ^= generator << (i - bits) }
        }
        return data << bits | remainder
    }

    // MARK: - Codewords

    /// Alignment pattern centre coordinates for this version (ISO/IEC 18004 Annex E, by its rule).
    var alignmentCentres: [Int] { Self.alignmentCentres(dimension: dimension) }

    /// Alignment pattern centre coordinates of a code `dimension` modules across.
    static func alignmentCentres(dimension: Int) -> [Int] {
        let version = (dimension - 17) / 4
        guard version >= 2 else { return [] }
        let count = version / 7 + 2
        let step = version == 32 ? 26 : (version * 4 + count * 2 + 1) / (count * 2 - 2) * 2
        var centres = [6]
        var position = dimension - 7
        var tail: [Int] = []
        for _ in 1..<count {
            tail.insert(position, at: 0)
            position -= step
        }
        centres += tail
        return centres
    }

    /// Finder patterns with separators and format information, timing patterns, alignment
    /// patterns and version information: the modules that carry no data.
    func functionModules() -> [Bool] {
        let n = dimension
        var function = [Bool](repeating: false, count: n * n)
        func mark(_ x0: Int, _ y0: Int, _ w: Int, _ h: Int) {
            for y in max(0, y0)..<min(n, y0 + h) { for x in max(0, x0)..<min(n, x0 + w) { function[y * n + x] = true } }
        }
        mark(0, 0, 9, 9); mark(n - 8, 0, 8, 9); mark(0, n - 8, 9, 8)
        mark(6, 0, 1, n); mark(0, 6, n, 1)
        let centres = alignmentCentres
        for cy in centres {
            for cx in centres {
                // The three that would overlap a finder pattern are not drawn.
                if (cx == 6 && cy == 6) || (cx == 6 && cy == n - 7) || (cx == n - 7 && cy == 6) { continue }
                mark(cx - 2, cy - 2, 5, 5)
            }
        }
        if version >= 7 { mark(n - 11, 0, 3, 6); mark(0, n - 11, 6, 3) }
        return function
    }

    /// The data mask condition for module (row i, column j).
    static func masked(_ mask: Int, _ i: Int, _ j: Int) -> Bool {
        switch mask {
        case 0: return (i + j) % 2 == 0
        case 1: return i % 2 == 0
        case 2: return j % 3 == 0
        case 3: return (i + j) % 3 == 0
        case 4: return (i / 2 + j / 3) % 2 == 0
        case 5: return (i * j) % 2 + (i * j) % 3 == 0
        case 6: return ((i * j) % 2 + (i * j) % 3) % 2 == 0
        default: return ((i + j) % 2 + (i * j) % 3) % 2 == 0
        }
    }

    /// The codewords in placement order: two-module columns from the right, up then down,
    /// skipping the vertical timing pattern; remainder bits are dropped.
    func readCodewords(mask: Int) -> [UInt8] {
        let n = dimension
        let function = functionModules()
        var codewords: [UInt8] = []
        codewords.reserveCapacity(n * n / 8)
        var current = 0, bits = 0
        // Over unchecked buffers: this visits every module of the grid, and with checked arrays
        // was as dear as sampling the grid.
        modules.withUnsafeBufferPointer { modules in
            function.withUnsafeBufferPointer { function in
                var upward = true
                var right = n - 1
                while right > 0 {
                    if right == 6 { right -= 1 }
                    for step in 0..<n {
                        let row = upward ? n - 1 - step : step
                        // The right column of the pair, then the left (counted, not an array
                        // literal, which was allocated at every step).
                        for left in 0..<2 {
                            let column = right - left
                            if function[row * n + column] { continue }
                            let bit = modules[row * n + column] != Self.masked(mask, row, column)
                            current = current << 1 | (bit ? 1 : 0)
                            bits += 1
                            if bits == 8 {
                                codewords.append(UInt8(current))
                                current = 0
                                bits = 0
                            }
                        }
                    }
                    upward.toggle()
                    right -= 2
                }
            }
        }
        return codewords
    }

    // MARK: - Blocks and error correction

    /// Error-correction codewords per block, per level (L, M, Q, H) and version (index 1-40).
    static let ecPerBlock: [[Int]] = [
        [0, 7, 10, 15, 20, 26, 18, 20, 24, 30, 18, 20, 24, 26, 30, 22, 24, 28, 30, 28, 28, 28, 28, 30, 30, 26, 28, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30],
        [0, 10, 16, 26, 18, 24, 16, 18, 22, 22, 26, 30, 22, 22, 24, 24, 28, 28, 26, 26, 26, 26, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28],
        [0, 13, 22, 18, 26, 18, 24, 18, 22, 20, 24, 28, 26, 24, 20, 30, 24, 28, 28, 26, 30, 28, 30, 30, 30, 30, 28, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30],
        [0, 17, 28, 22, 16, 22, 28, 26, 26, 24, 28, 24, 28, 22, 24, 24, 30, 28, 28, 26, 28, 30, 24, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30],
    ]
    /// Number of blocks, same layout.
    static let blockCount: [[Int]] = [
        [0, 1, 1, 1, 1, 1, 2, 2, 2, 2, 4, 4, 4, 4, 4, 6, 6, 6, 6, 7, 8, 8, 9, 9, 10, 12, 12, 12, 13, 14, 15, 16, 17, 18, 19, 19, 20, 21, 22, 24, 25],
        [0, 1, 1, 1, 2, 2, 4, 4, 4, 5, 5, 5, 8, 9, 9, 10, 10, 11, 13, 14, 16, 17, 17, 18, 20, 21, 23, 25, 26, 28, 29, 31, 33, 35, 37, 38, 40, 43, 45, 47, 49],
        [0, 1, 1, 2, 2, 4, 4, 6, 6, 8, 8, 8, 10, 12, 16, 12, 17, 16, 18, 21, 20, 23, 23, 25, 27, 29, 34, 34, 35, 38, 40, 43, 45, 48, 51, 53, 56, 59, 62, 65, 68],
        [0, 1, 1, 2, 4, 4, 4, 5, 6, 8, 8, 11, 11, 16, 16, 18, 16, 19, 21, 25, 25, 25, 34, 30, 32, 35, 37, 40, 42, 45, 48, 51, 54, 57, 60, 63, 66, 70, 74, 77, 81],
    ]

    /// Codewords the standard sets aside for misdecode detection in the smallest codes
    /// (ISO/IEC 18004 Table 9, "p"): they may not be spent on correction.
    func misdecodeProtection(_ level: Level) -> Int {
        switch (version, level) {
        case (1, .l): return 3
        case (1, .m), (2, .l): return 2
        case (1, .q), (1, .h), (3, .l): return 1
        default: return 0
        }
    }

    /// Splits the interleaved codewords into blocks, corrects each, and joins their data.
    func correctedData(_ codewords: [UInt8], level: Level) -> [UInt8]? {
        let row = [Level.l: 0, .m: 1, .q: 2, .h: 3][level] ?? 0
        let ec = Self.ecPerBlock[row][version], blocks = Self.blockCount[row][version]
        let total = codewords.count
        let shortLength = total / blocks, longBlocks = total % blocks
        let shortData = shortLength - ec
        guard shortData > 0 else { return nil }
        var split = [[UInt8]](repeating: [], count: blocks)
        var k = 0
        for i in 0..<(shortData + 1) {
            for b in 0..<blocks where i < shortData || b >= blocks - longBlocks {
                split[b].append(codewords[k])
                k += 1
            }
        }
        for _ in 0..<ec {
            for b in 0..<blocks {
                split[b].append(codewords[k])
                k += 1
            }
        }
        let maxErrors = (ec - misdecodeProtection(level)) / 2
        var data: [UInt8] = []
        for var block in split {
            guard QRReedSolomon.correct(&block, ecCount: ec, maxErrors: maxErrors) else { return nil }
            data += block.dropLast(ec)
        }
        return data
    }
}
