/// Code 32 (Italian Pharmacode, "Codice Farmaceutico"): a 9-digit medicine number (8 digits and
/// a check digit) written in base 32 as six Code 39 characters. Its text is `A` and the nine
/// digits, as printed under the bars; the Code 39 characters stay in `ScanResult.bytes`.
///
/// Decision (issue #15): Code 32 is one of SCN-3's "others", off unless asked for
/// (`--symbology code32`, or `"symbologies"` in edge.json's `scanning`). It cannot be told from
/// Code 39 by its bars: any six Code 39 characters from its alphabet whose value passes the
/// check digit read as Code 32 (about one in ten such labels by chance), so a station reading
/// six-character Code 39 part numbers would see them turned into pharmacodes. When both are
/// enabled, a read that is valid Code 32 is reported as Code 32 only, as zxing-cpp does.
public enum Code32 {
    /// Base-32 digits: 0-9 and the letters without the vowels A, E, I and O.
    static let alphabet = Array("0123456789BCDFGHJKLMNPQRSTUVWXYZ".utf8)

    /// The text (`A` + nine digits) of six Code 39 characters, or nil when they are not a Code 32.
    public static func decode(_ raw: some Collection<UInt8>) -> [UInt8]? {
        guard raw.count == 6 else { return nil }
        var value = 0
        for c in raw {
            guard let digit = alphabet.firstIndex(of: c) else { return nil }
            value = value * 32 + digit
        }
        // Six base-32 digits reach 2^30 - 1; a medicine number has nine decimal digits.
        guard value < 1_000_000_000 else { return nil }
        var digits = [UInt8](repeating: 0, count: 9)
        for i in (0..<9).reversed() {
            digits[i] = UInt8(value % 10)
            value /= 10
        }
        guard checkDigit(digits.prefix(8)) == digits[8] else { return nil }
        return [UInt8(ascii: "A")] + digits.map { $0 + 0x30 }
    }

    /// The check digit of the first eight digits (values 0-9): those in odd positions are added,
    /// those in even positions doubled with the two digits of the product added, modulo 10.
    static func checkDigit(_ digits: some Collection<UInt8>) -> UInt8 {
        var sum = 0
        for (i, d) in digits.enumerated() {
            if i % 2 == 0 {
                sum += Int(d)
            } else {
                let doubled = Int(d) * 2
                sum += doubled / 10 + doubled % 10
            }
        }
        return UInt8(sum % 10)
    }
}
