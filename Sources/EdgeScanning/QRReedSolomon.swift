/// Reed-Solomon error correction over GF(256) as QR codes use it (ISO/IEC 18004 §7.5.2):
/// primitive polynomial x^8 + x^4 + x^3 + x^2 + 1 (0x11D), generator roots α^0 … α^(n-1).
///
/// Berlekamp-Massey finds the error locator, a Chien search its roots, and the magnitudes come
/// from solving the syndrome equations directly (at most 15 unknowns), which sidesteps the
/// sign and offset conventions of Forney's formula. Every correction is checked by recomputing
/// the syndromes: a block is only reported corrected when they are all zero.
enum QRReedSolomon {
    /// exp[i] = α^i for i in 0..<510 (doubled so products need no modulo); log[exp[i]] = i.
    static let tables: (exp: [UInt8], log: [Int]) = {
        var exp = [UInt8](repeating: 0, count: 510)
        var log = [Int](repeating: 0, count: 256)
        var x = 1
        for i in 0..<255 {
            exp[i] = UInt8(x)
            log[x] = i
            x <<= 1
            if x & 0x100 != 0 { x ^= 0x11D }
        }
        for i in 255..<510 { exp[i] = exp[i - 255] }
        return (exp, log)
    }()

    static func mul(_ a: UInt8, _ b: UInt8) -> UInt8 {
        if a == 0 || b == 0 { return 0 }
        return tables.exp[tables.log[Int(a)] + tables.log[Int(b)]]
    }

    static func div(_ a: UInt8, _ b: UInt8) -> UInt8 {
        // b is never 0 here: callers divide by a nonzero discrepancy or pivot.
        if a == 0 || b == 0 { return 0 }
        return tables.exp[tables.log[Int(a)] + 255 - tables.log[Int(b)]]
    }

    /// α^e for any e >= 0.
    static func pow(_ e: Int) -> UInt8 { tables.exp[e % 255] }

    /// Corrects `block` (data then `ecCount` error-correction codewords, highest degree first) in
    /// place. Returns false when it holds more than `maxErrors` errors or cannot be corrected;
    /// `block` is then unchanged.
    static func correct(_ block: inout [UInt8], ecCount: Int, maxErrors: Int) -> Bool {
        let n = block.count
        guard ecCount > 0, ecCount < n, n <= 255 else { return false }
        let syndromes = Self.syndromes(of: block, count: ecCount)
        if syndromes.allSatisfy({ $0 == 0 }) { return true }

        // Berlekamp-Massey: the shortest LFSR (error locator Λ, Λ[0] = 1) generating the syndromes.
        var locator: [UInt8] = [1]
        var previous: [UInt8] = [1]
        var length = 0, shift = 1
        var lastDiscrepancy: UInt8 = 1
        for k in 0..<ecCount {
            var d = syndromes[k]
            for i in 1..<max(1, locator.count) where k - i >= 0 { d ^= mul(locator[i], syndromes[k - i]) }
            if d == 0 {
                shift += 1
                continue
            }
            let factor = div(d, lastDiscrepancy)
            var next = locator
            if next.count < previous.count + shift { next += [UInt8](repeating: 0, count: previous.count + shift - next.count) }
            for (i, p) in previous.enumerated() { next[i + shift] ^= mul(factor, p) }
            if 2 * length <= k {
                previous = locator
                length = k + 1 - length
                lastDiscrepancy = d
                shift = 1
            } else {
                shift += 1
            }
            locator = next
        }
        guard length <= maxErrors, 2 * length <= ecCount else { return false }

        // Chien search: position j (from the start) has locator X = α^(n-1-j); it is an error
        // position when Λ(X^-1) = 0.
        // In the log domain, over the tables held once (through `mul` this was most of a photo's
        // error correction): c_k X^-k is α^(log c_k + k log X^-1).
        var positions: [Int] = []
        let (exp, log) = tables
        let logs = locator.map { $0 == 0 ? -1 : log[Int($0)] }
        exp.withUnsafeBufferPointer { exp in
            for j in 0..<n {
                let inverseLog = (255 - (n - 1 - j) % 255) % 255
                var value: UInt8 = 0
                for (k, c) in logs.enumerated() where c >= 0 { value ^= exp[(c + k * inverseLog) % 255] }
                if value == 0 { positions.append(j) }
            }
        }
        guard positions.count == length else { return false }

        // Magnitudes: Σ_j e_j · X_j^i = S_i for i in 0..<length, solved by Gaussian elimination.
        let xs = positions.map { pow(n - 1 - $0) }
        var matrix = (0..<length).map { i in xs.map { x in powOf(x, i) } + [syndromes[i]] }
        for col in 0..<length {
            guard let pivot = (col..<length).first(where: { matrix[$0][col] != 0 }) else { return false }
            matrix.swapAt(col, pivot)
            let inverse = div(1, matrix[col][col])
            for c in col...length { matrix[col][c] = mul(matrix[col][c], inverse) }
            for r in 0..<length where r != col && matrix[r][col] != 0 {
                let f = matrix[r][col]
                for c in col...length { matrix[r][c] ^= mul(f, matrix[col][c]) }
            }
        }
        var corrected = block
        for (k, j) in positions.enumerated() { corrected[j] ^= matrix[k][length] }
        guard Self.syndromes(of: corrected, count: ecCount).allSatisfy({ $0 == 0 }) else { return false }
        block = corrected
        return true
    }

    /// S_i = r(α^i) for i in 0..<count, r's first element the highest-degree coefficient.
    /// Multiplying by α^i is adding i to the logarithm; the tables are held once for the loop
    /// (through `mul` every product read the lazily made tables again), and all syndromes advance
    /// together, codeword by codeword, so their table lookups overlap instead of waiting on each
    /// other: this was the largest part of decoding a clean grid.
    static func syndromes(of block: [UInt8], count: Int) -> [UInt8] {
        let (exp, log) = tables
        var values = [UInt8](repeating: 0, count: min(count, 255))
        exp.withUnsafeBufferPointer { exp in
            log.withUnsafeBufferPointer { log in
                values.withUnsafeMutableBufferPointer { values in
                    // i < 255 and log < 255: every index is within the doubled table.
                    for c in block {
                        for i in values.indices {
                            let v = values[i]
                            values[i] = (v == 0 ? 0 : exp[log[Int(v)] + i]) ^ c
                        }
                    }
                }
            }
        }
        return values
    }

    private static func powOf(_ x: UInt8, _ e: Int) -> UInt8 {
        var r: UInt8 = 1
        for _ in 0..<e { r = mul(r, x) }
        return r
    }

    /// The `ecCount` error-correction codewords of `data` (the remainder of data·x^ecCount by the
    /// generator ∏(x - α^i)): what an encoder appends. Used by the tests to build blocks.
    static func ecCodewords(of data: [UInt8], ecCount: Int) -> [UInt8] {
        var generator: [UInt8] = [1]
        for i in 0..<ecCount {
            var next = [UInt8](repeating: 0, count: generator.count + 1)
            for (k, g) in generator.enumerated() {
                next[k] ^= g
                next[k + 1] ^= mul(g, pow(i))
            }
            generator = next
        }
        var remainder = data + [UInt8](repeating: 0, count: ecCount)
        for k in 0..<data.count where remainder[k] != 0 {
            let f = remainder[k]
            for (i, g) in generator.enumerated() { remainder[k + i] ^= mul(f, g) }
        }
        return Array(remainder.suffix(ecCount))
    }
}
