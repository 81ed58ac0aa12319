import EdgeImaging

/// Restores the Code 128 FNC4 characters that zbar drops.
///
/// Why: zbar 0.23.92 reads FNC4 (codeword 100 in code set B, 101 in code set A) but ignores it
/// (`FIXME FNC4 - extended ASCII` in its code128.c), so every ISO-8859-1 character >= 0x80 comes
/// out with its high bit cleared: "Grüße" reads "Gr|_e", a silent misread.
///
/// How: zbar does not hand out codewords, so this re-reads the symbol from the pixels along the
/// scan lines zbar decoded it on (one location point per line). Each line is thresholded, cut
/// into bar/space edges with sub-pixel positions, and decoded character by character from
/// edge-to-similar-edge distances (ISO/IEC 15417's reference method, which blur and ink spread
/// leave nearly unchanged); the mod-103 check is verified, then code sets A/B/C, SHIFT and FNC1
/// are interpreted exactly as zbar does, plus FNC4.
///
/// Safety rule: the re-read is trusted only when it agrees with zbar: its bytes with the high bit
/// cleared must equal zbar's bytes exactly, and it must contain an FNC4. Anything else (no FNC4,
/// a line that reads differently, no line that reads at all) gives nil and the caller keeps
/// zbar's bytes, so this can add the high bits but never change a character zbar read.
enum Code128Extended {
    /// `zbarBytes`: the data zbar returned; `points`: zbar's location points for the symbol in the
    /// scanned image's coordinates (for 1D codes zbar adds one point per scan line that decoded it,
    /// near the ends of the symbol on that line; horizontal scan lines share y, vertical ones share x).
    /// Returns the bytes with FNC4 applied (values >= 0x80 are ISO-8859-1), or nil when the code has
    /// no FNC4 or the re-read cannot be confirmed.
    static func extendedBytes(zbarBytes: [UInt8], points: [(x: Int, y: Int)], in view: ImageView) -> [UInt8]? {
        guard let read = confirmedRead(zbarBytes: zbarBytes, points: points, in: view), read.hasFNC4 else { return nil }
        return read.bytes
    }

    /// The first re-read along zbar's lines that agrees with `zbarBytes`, with or without FNC4;
    /// nil when no line agrees. Separate from `extendedBytes` so tests can check that the reader
    /// agrees with zbar on codes without FNC4 too.
    static func confirmedRead(zbarBytes: [UInt8], points: [(x: Int, y: Int)], in view: ImageView) -> (bytes: [UInt8], hasFNC4: Bool)? {
        // zbar emits 7-bit data; anything else was not produced by zbar's Code 128 decoder.
        guard view.width > 0, view.height > 0, zbarBytes.allSatisfy({ $0 < 0x80 }) else { return nil }
        let inside = points.filter { $0.x >= 0 && $0.x < view.width && $0.y >= 0 && $0.y < view.height }
        guard let minX = inside.map(\.x).min(), let maxX = inside.map(\.x).max(),
              let minY = inside.map(\.y).min(), let maxY = inside.map(\.y).max() else { return nil }
        // Horizontal scan lines put their points at the two ends of the symbol, so the points
        // spread more along x than across the lines, and vice versa. A short, tall code can
        // defeat that, so the other direction is tried after the likely one.
        let horizontalFirst = maxX - minX >= maxY - minY
        for horizontal in [horizontalFirst, !horizontalFirst] {
            let along = horizontal ? maxX - minX : maxY - minY
            let length = horizontal ? view.width : view.height
            // Local min/max window: wide enough to always hold a bar and a space inside a symbol
            // (elements are at most 4 modules, the symbol is at least 46), narrow enough to follow
            // uneven light. The points' spread approximates the symbol's length on the line.
            let radius = max(4, max(along, length / 4) / 8)
            for line in lineCoordinates(inside, horizontal: horizontal) {
                let samples = sample(view, horizontal: horizontal, at: line)
                let forward = edges(of: samples, radius: radius)
                // A symbol seen right to left starts with the reversed stop pattern (2111332);
                // reversing the line turns it into an ordinary left-to-right read.
                let backward = forward.reversed().map { Double(samples.count - 1) - $0 }
                for candidate in [forward, backward] {
                    for codewords in symbols(in: candidate) {
                        guard let read = interpret(codewords) else { continue }
                        if read.bytes.map({ $0 & 0x7F }) == zbarBytes { return read }
                    }
                }
            }
        }
        return nil
    }

    // MARK: - Scan lines

    /// Distinct scan lines through the points (y for horizontal lines, x for vertical ones), the
    /// most central first: the middle of a symbol is the least likely to be damaged or cut off.
    static func lineCoordinates(_ points: [(x: Int, y: Int)], horizontal: Bool, limit: Int = 64) -> [Int] {
        let values = Set(points.map { horizontal ? $0.y : $0.x })
        guard let low = values.min(), let high = values.max() else { return [] }
        // Twice the centre keeps the ordering in integers.
        let centre2 = low + high
        let ordered = values.sorted { a, b in
            let da = abs(2 * a - centre2), db = abs(2 * b - centre2)
            return da != db ? da < db : a < b
        }
        return Array(ordered.prefix(limit))
    }

    /// The whole row or column at `line` (the points are only near the ends of the symbol).
    static func sample(_ view: ImageView, horizontal: Bool, at line: Int) -> [UInt8] {
        if horizontal {
            let start = line * view.rowStride
            return Array(view.pixels[start..<(start + view.width)])
        }
        return (0..<view.height).map { view.pixels[$0 * view.rowStride + line] }
    }

    // MARK: - Edges

    /// Sub-pixel positions of the bar edges along a line: even indices are leading edges (light
    /// to dark), odd ones trailing edges, so bar k spans `[2k]...[2k+1]`. A bar cut by the end of
    /// the line is closed there, for codes printed without a quiet zone.
    ///
    /// The threshold at each pixel is the midpoint of the darkest and lightest pixel within
    /// `radius`: it sits halfway between ink and paper whatever the local mix of bars and spaces
    /// (a window mean moves with the bar/space ratio of the characters and shifts every edge),
    /// and it follows gradual changes of light across the symbol. Where the window holds too
    /// little contrast (quiet zone, paper) nothing is dark, so paper noise makes no edges.
    static func edges(of samples: [UInt8], radius: Int) -> [Double] {
        let n = samples.count
        guard n >= 2 else { return [] }
        let low = slidingExtreme(samples, radius: radius, keep: <)
        let high = slidingExtreme(samples, radius: radius, keep: >)
        guard let globalLow = samples.min(), let globalHigh = samples.max() else { return [] }
        let minContrast = max(12, (Int(globalHigh) - Int(globalLow)) / 8)
        var threshold = [Double](repeating: -1, count: n)
        for i in 0..<n where Int(high[i]) - Int(low[i]) >= minContrast {
            threshold[i] = (Double(low[i]) + Double(high[i])) / 2
        }
        var result: [Double] = []
        var dark = Double(samples[0]) < threshold[0]
        if dark { result.append(-0.5) }
        for i in 0..<(n - 1) {
            let next = Double(samples[i + 1]) < threshold[i + 1]
            guard next != dark else { continue }
            // Where the straight line between the two pixels crosses their mean threshold.
            let a = Double(samples[i]), b = Double(samples[i + 1])
            let t = (threshold[i] + threshold[i + 1]) / 2
            let f = a == b ? 0.5 : min(1, max(0, (t - a) / (b - a)))
            result.append(Double(i) + f)
            dark = next
        }
        if dark { result.append(Double(n) - 0.5) }
        return result
    }

    /// Minimum (`keep: <`) or maximum (`keep: >`) over `[i - radius, i + radius]` for every i,
    /// in linear time with a monotonic queue of indices.
    static func slidingExtreme(_ samples: [UInt8], radius: Int, keep: (UInt8, UInt8) -> Bool) -> [UInt8] {
        let n = samples.count
        var out = [UInt8](repeating: 0, count: n)
        var queue = [Int](repeating: 0, count: n)
        var head = 0, tail = 0
        var next = 0
        for i in 0..<n {
            // Admit every index up to i + radius, dropping those that can never be the extreme.
            while next < n && next <= i + radius {
                while tail > head && !keep(samples[queue[tail - 1]], samples[next]) { tail -= 1 }
                queue[tail] = next
                tail += 1
                next += 1
            }
            while queue[head] < i - radius { head += 1 }
            out[i] = samples[queue[head]]
        }
        return out
    }

    // MARK: - Codewords

    /// Widths of the 107 Code 128 symbol characters (bar, space, bar, space, bar, space in
    /// modules; the stop character 106 has a seventh element, its final 2-module bar), from
    /// ISO/IEC 15417 table 1, indexed by codeword value.
    static let patterns: [String] = [
        "212222", "222122", "222221", "121223", "121322", "131222", "122213", "122312", "132212", "221213",
        "221312", "231212", "112232", "122132", "122231", "113222", "123122", "123221", "223211", "221132",
        "221231", "213212", "223112", "312131", "311222", "321122", "321221", "312212", "322112", "322211",
        "212123", "212321", "232121", "111323", "131123", "131321", "112313", "132113", "132311", "211313",
        "231113", "231311", "112133", "112331", "132131", "113123", "113321", "133121", "313121", "211331",
        "231131", "213113", "213311", "213131", "311123", "311321", "331121", "312113", "312311", "332111",
        "314111", "221411", "431111", "111224", "111422", "121124", "121421", "141122", "141221", "112214",
        "112412", "122114", "122411", "142112", "142211", "241211", "221114", "413111", "241112", "134111",
        "111242", "121142", "121241", "114212", "124112", "124211", "411212", "421112", "421211", "212141",
        "214121", "412121", "111143", "111341", "131141", "114113", "114311", "411113", "411311", "113141",
        "114131", "311141", "411131", "211412", "211214", "211232", "2331112",
    ]

    static let stop = 106

    /// Codeword candidates by edge signature: the four edge-to-similar-edge distances (bar +
    /// space, space + bar, ...) of the first six elements, as a 4-digit number. A signature fixes
    /// a character up to its first bar's width; characters sharing one differ in their total bar
    /// width by a multiple of 6 modules, which picks between them.
    static let signatures: [Int: [(value: Int, bars: Int)]] = {
        var table: [Int: [(value: Int, bars: Int)]] = [:]
        for (value, pattern) in patterns.enumerated() {
            let w = pattern.compactMap { $0.wholeNumberValue }
            guard w.count >= 6 else { continue }
            let key = (0..<4).reduce(0) { $0 * 10 + w[$1] + w[$1 + 1] }
            table[key, default: []].append((value, w[0] + w[2] + w[4]))
        }
        return table
    }()

    /// The symbol character whose first bar starts at edge `k`, and its width in pixels.
    static func character(_ e: [Double], at k: Int) -> (value: Int, width: Double)? {
        guard k >= 0, k % 2 == 0, k + 6 < e.count else { return nil }
        let width = e[k + 6] - e[k]
        guard width > 0 else { return nil }
        let scale = 11 / width
        var key = 0
        for j in 0..<4 {
            let modules = ((e[k + j + 2] - e[k + j]) * scale).rounded()
            guard modules >= 2, modules <= 7 else { return nil }
            key = key * 10 + Int(modules)
        }
        guard let candidates = signatures[key] else { return nil }
        let bars = (e[k + 1] - e[k] + e[k + 3] - e[k + 2] + e[k + 5] - e[k + 4]) * scale
        // Candidates' bar totals are 6 modules apart: within 3 is unambiguous.
        guard let best = candidates.min(by: { abs(Double($0.bars) - bars) < abs(Double($1.bars) - bars) }),
              abs(Double(best.bars) - bars) < 3 else { return nil }
        return (best.value, width)
    }

    /// Every symbol on the line read left to right whose check character verifies, as its
    /// codewords from the start character up to (without) the check character.
    static func symbols(in e: [Double]) -> [[Int]] {
        var found: [[Int]] = []
        var k = 0
        while k + 6 < e.count {
            if let start = character(e, at: k), (103...105).contains(start.value),
               let codewords = symbol(in: e, start: start.value, at: k + 6, width: start.width) {
                found.append(codewords)
                // Past the data, the check character (6 edges) and the stop character (8).
                k += 6 * codewords.count + 14
                continue
            }
            k += 2
        }
        return found
    }

    /// Reads characters from edge `k` to the stop character and verifies the mod-103 check.
    private static func symbol(in e: [Double], start: Int, at first: Int, width: Double) -> [Int]? {
        var codewords = [start]
        var k = first
        var previous = width
        while let c = character(e, at: k) {
            // Neighbouring characters are equally wide; a jump means the read left the symbol
            // (or a spurious edge split an element).
            guard c.width > previous * 0.7, c.width < previous * 1.4 else { return nil }
            if c.value == stop {
                // The stop character's final bar (2 modules), measured in this character's scale.
                guard k + 7 < e.count else { return nil }
                let bar = (e[k + 7] - e[k + 6]) * 11 / c.width
                guard bar > 1, bar < 3.5 else { return nil }
                // Start, at least one data character, check.
                guard codewords.count >= 3, let check = codewords.popLast() else { return nil }
                var sum = start
                for (i, value) in codewords.enumerated().dropFirst() { sum += i * value }
                return sum % 103 == check ? codewords : nil
            }
            guard c.value < 103 else { return nil }
            codewords.append(c.value)
            previous = c.width
            k += 6
        }
        return nil
    }

    // MARK: - Interpretation

    /// Bytes from codewords (start character first, check character removed), with FNC4 applied.
    ///
    /// FNC1 is rendered as zbar renders it, so that the high-bit-cleared bytes can be compared
    /// with zbar's exactly: dropped as the first or second data codeword (GS1 and AIM markers) and
    /// as the last one, GS (0x1D) elsewhere. FNC2 and FNC3 carry no data. FNC4 (ISO/IEC 15417):
    /// one adds 128 to the next data character; two in a row toggle extended mode for all
    /// following data characters, in which a single FNC4 makes the next character a normal one.
    /// Code set C digit pairs are never extended. nil for codeword sequences no encoder makes.
    static func interpret(_ codewords: [Int]) -> (bytes: [UInt8], hasFNC4: Bool)? {
        guard let start = codewords.first, (103...105).contains(start) else { return nil }
        // 0: code set A, 1: B, 2: C.
        var set = start - 103
        var shifted = false
        var pendingFNC4 = false
        var extended = false
        var hasFNC4 = false
        var bytes: [UInt8] = []
        let last = codewords.count - 1
        for position in 1..<max(1, codewords.count) {
            let value = codewords[position]
            // SHIFT swaps A and B for this one codeword only.
            let active = shifted ? 1 - set : set
            shifted = false
            if value == 102 {
                if position > 2 && position < last { bytes.append(0x1D) }
                continue
            }
            if active == 2 {
                switch value {
                case 0..<100:
                    bytes.append(UInt8(0x30 + value / 10))
                    bytes.append(UInt8(0x30 + value % 10))
                case 100: set = 1
                case 101: set = 0
                default: return nil
                }
                continue
            }
            switch value {
            case 0..<96:
                // Set A: 0-63 are ASCII 32-95, 64-95 are the controls 0-31; set B: ASCII 32-127.
                let ascii = active == 1 || value < 64 ? value + 32 : value - 64
                let high = extended != pendingFNC4
                pendingFNC4 = false
                bytes.append(UInt8(ascii + (high ? 128 : 0)))
            case 96, 97:
                break
            case 98:
                shifted = true
            case 99:
                set = 2
            case 100, 101:
                // 100 is FNC4 in set B and CODE B in set A; 101 the other way round.
                if (value == 100) == (active == 1) {
                    hasFNC4 = true
                    if pendingFNC4 {
                        extended.toggle()
                        pendingFNC4 = false
                    } else {
                        pendingFNC4 = true
                    }
                } else {
                    set = value == 100 ? 1 : 0
                }
            default:
                return nil
            }
        }
        return (bytes, hasFNC4)
    }
}
