/// The GS1 application identifiers edge knows, from the GS1 Barcode Syntax Dictionary (the
/// machine-readable form of the GS1 General Specifications' AI table): every AI defined there,
/// with GS1's data titles. An AI missing from this table is refused as unknown rather than
/// guessed at, because its length decides where the next element starts.
enum GS1AITable {
    /// The definition for exactly `ai`.
    static func definition(_ ai: String) -> GS1AIDefinition? { byAI[ai] }

    /// The AI that starts `bytes`: GS1 AIs are 2-4 digits and none is a prefix of another, so the
    /// first length that names a defined AI is the one.
    static func definition(startOf bytes: ArraySlice<UInt8>) -> GS1AIDefinition? {
        for length in 2...4 {
            guard bytes.count >= length else { return nil }
            let prefix = bytes.prefix(length)
            guard prefix.allSatisfy(ASCII.isDigit) else { return nil }
            if let found = byAI[ASCII.string(prefix)] { return found }
        }
        return nil
    }

    static let all: [GS1AIDefinition] = rows.flatMap(\.definitions)

    private static let byAI: [String: GS1AIDefinition] = {
        var table: [String: GS1AIDefinition] = [:]
        for definition in all { table[definition.ai] = definition }
        return table
    }()

    /// One line of the dictionary: a single AI or a range (e.g. 3100-3105) sharing one format.
    private struct Row {
        let first: Int
        let last: Int
        let digits: Int
        let title: String
        let predefinedLength: Bool
        let components: [GS1Component]
        let impliedDecimal: Bool
        let excludes: [String]

        var definitions: [GS1AIDefinition] {
            (first...last).map { number in
                let text = String(number)
                let ai = String(repeating: "0", count: max(0, digits - text.count)) + text
                return GS1AIDefinition(ai: ai, title: title, predefinedLength: predefinedLength, components: components,
                                       impliedDecimal: impliedDecimal, excludes: excludes)
            }
        }
    }

    /// A single AI; `ai` keeps its leading zeros ("00").
    private static func ai(_ ai: String, _ title: String, fixed: Bool = false, _ components: [GS1Component], excludes: [String] = []) -> Row {
        Row(first: Int(ai) ?? 0, last: Int(ai) ?? 0, digits: ai.count, title: title, predefinedLength: fixed, components: components,
            impliedDecimal: false, excludes: excludes)
    }

    /// A range of four-digit AIs whose last digit places the decimal point (31nn-36nn, 39nn);
    /// each excludes the rest of its family.
    private static func measure(_ family: Int, through lastDigit: Int, _ title: String, fixed: Bool = true,
                                _ components: [GS1Component] = [.n(6)], excludes: [String] = []) -> Row {
        Row(first: family * 10, last: family * 10 + lastDigit, digits: 4, title: title, predefinedLength: fixed, components: components,
            impliedDecimal: true, excludes: ["\(family)n"] + excludes)
    }

    /// A range of AIs with one format and no decimal point (91-99, 7030-7039, 7230-7239).
    private static func range(_ first: Int, _ last: Int, digits: Int, _ title: String, _ components: [GS1Component]) -> Row {
        Row(first: first, last: last, digits: digits, title: title, predefinedLength: false, components: components,
            impliedDecimal: false, excludes: [])
    }

    private static let date0 = GS1Component.n(6, .date(dayZero: true))
    private static let date = GS1Component.n(6, .date(dayZero: false))
    private static let gln = GS1Component.n(13, .checkDigit)
    private static let optionalMinus = GS1Component.x(1, .hyphen).orAbsent

    private static let rows: [Row] = [
        ai("00", "SSCC", fixed: true, [.n(18, .checkDigit)]),
        ai("01", "GTIN", fixed: true, [.n(14, .checkDigit)], excludes: ["02", "255", "37"]),
        ai("02", "CONTENT", fixed: true, [.n(14, .checkDigit)]),
        ai("10", "BATCH/LOT", [.x(upTo: 20)]),
        ai("11", "PROD DATE", fixed: true, [date0]),
        ai("12", "DUE DATE", fixed: true, [date0]),
        ai("13", "PACK DATE", fixed: true, [date0]),
        ai("15", "BEST BEFORE or BEST BY", fixed: true, [date0]),
        ai("16", "SELL BY", fixed: true, [date0]),
        ai("17", "USE BY or EXPIRY", fixed: true, [date0]),
        ai("20", "VARIANT", fixed: true, [.n(2)]),
        ai("21", "SERIAL", [.x(upTo: 20)], excludes: ["235"]),
        ai("22", "CPV", [.x(upTo: 20)]),
        ai("235", "TPX", [.x(upTo: 28)]),
        ai("240", "ADDITIONAL ID", [.x(upTo: 30)]),
        ai("241", "CUST. PART No.", [.x(upTo: 30)]),
        ai("242", "MTO VARIANT", [.n(upTo: 6)]),
        ai("243", "PCN", [.x(upTo: 20)]),
        ai("250", "SECONDARY SERIAL", [.x(upTo: 30)]),
        ai("251", "REF. TO SOURCE", [.x(upTo: 30)]),
        ai("253", "GDTI", [.n(13, .checkDigit), GS1Component.x(upTo: 17).orAbsent]),
        ai("254", "GLN EXTENSION COMPONENT", [.x(upTo: 20)]),
        ai("255", "GCN", [.n(13, .checkDigit), GS1Component.n(upTo: 12).orAbsent], excludes: ["01", "02", "415", "8006", "8020", "8026"]),
        ai("30", "VAR. COUNT", [.n(upTo: 8)]),
        measure(310, through: 5, "NET WEIGHT (kg)"),
        measure(311, through: 5, "LENGTH (m)"),
        measure(312, through: 5, "WIDTH (m)"),
        measure(313, through: 5, "HEIGHT (m)"),
        measure(314, through: 5, "AREA (m²)"),
        measure(315, through: 5, "NET VOLUME (l)"),
        measure(316, through: 5, "NET VOLUME (m³)"),
        measure(320, through: 5, "NET WEIGHT (lb)"),
        measure(321, through: 5, "LENGTH (in)"),
        measure(322, through: 5, "LENGTH (ft)"),
        measure(323, through: 5, "LENGTH (yd)"),
        measure(324, through: 5, "WIDTH (in)"),
        measure(325, through: 5, "WIDTH (ft)"),
        measure(326, through: 5, "WIDTH (yd)"),
        measure(327, through: 5, "HEIGHT (in)"),
        measure(328, through: 5, "HEIGHT (ft)"),
        measure(329, through: 5, "HEIGHT (yd)"),
        measure(330, through: 5, "GROSS WEIGHT (kg)"),
        measure(331, through: 5, "LENGTH (m), log"),
        measure(332, through: 5, "WIDTH (m), log"),
        measure(333, through: 5, "HEIGHT (m), log"),
        measure(334, through: 5, "AREA (m²), log"),
        measure(335, through: 5, "VOLUME (l), log"),
        measure(336, through: 5, "VOLUME (m³), log"),
        measure(337, through: 5, "KG PER m²"),
        measure(340, through: 5, "GROSS WEIGHT (lb)"),
        measure(341, through: 5, "LENGTH (in), log"),
        measure(342, through: 5, "LENGTH (ft), log"),
        measure(343, through: 5, "LENGTH (yd), log"),
        measure(344, through: 5, "WIDTH (in), log"),
        measure(345, through: 5, "WIDTH (ft), log"),
        measure(346, through: 5, "WIDTH (yd), log"),
        measure(347, through: 5, "HEIGHT (in), log"),
        measure(348, through: 5, "HEIGHT (ft), log"),
        measure(349, through: 5, "HEIGHT (yd), log"),
        measure(350, through: 5, "AREA (in²)"),
        measure(351, through: 5, "AREA (ft²)"),
        measure(352, through: 5, "AREA (yd²)"),
        measure(353, through: 5, "AREA (in²), log"),
        measure(354, through: 5, "AREA (ft²), log"),
        measure(355, through: 5, "AREA (yd²), log"),
        measure(356, through: 5, "NET WEIGHT (t oz)"),
        measure(357, through: 5, "NET VOLUME (oz)"),
        measure(360, through: 5, "NET VOLUME (qt)"),
        measure(361, through: 5, "NET VOLUME (gal.)"),
        measure(362, through: 5, "VOLUME (qt), log"),
        measure(363, through: 5, "VOLUME (gal.), log"),
        measure(364, through: 5, "VOLUME (in³)"),
        measure(365, through: 5, "VOLUME (ft³)"),
        measure(366, through: 5, "VOLUME (yd³)"),
        measure(367, through: 5, "VOLUME (in³), log"),
        measure(368, through: 5, "VOLUME (ft³), log"),
        measure(369, through: 5, "VOLUME (yd³), log"),
        ai("37", "COUNT", [.n(upTo: 8)]),
        measure(390, through: 9, "AMOUNT", fixed: false, [.n(upTo: 15)], excludes: ["391n", "394n", "8111"]),
        measure(391, through: 9, "AMOUNT", fixed: false, [.n(3), .n(upTo: 15)]),
        measure(392, through: 9, "PRICE", fixed: false, [.n(upTo: 15)], excludes: ["393n"]),
        measure(393, through: 9, "PRICE", fixed: false, [.n(3), .n(upTo: 15)]),
        measure(394, through: 3, "PRCNT OFF", fixed: false, [.n(4)], excludes: ["8111"]),
        measure(395, through: 5, "PRICE/UoM", fixed: false, [.n(6)], excludes: ["392n", "393n", "8005"]),
        ai("400", "ORDER NUMBER", [.x(upTo: 30)]),
        ai("401", "GINC", [.x(upTo: 30)]),
        ai("402", "GSIN", [.n(17, .checkDigit)]),
        ai("403", "ROUTE", [.x(upTo: 30)]),
        ai("410", "SHIP TO LOC", fixed: true, [gln]),
        ai("411", "BILL TO", fixed: true, [gln]),
        ai("412", "PURCHASE FROM", fixed: true, [gln]),
        ai("413", "SHIP FOR LOC", fixed: true, [gln]),
        ai("414", "LOC No.", fixed: true, [gln]),
        ai("415", "PAY TO", fixed: true, [gln]),
        ai("416", "PROD/SERV LOC", fixed: true, [gln]),
        ai("417", "PARTY", fixed: true, [gln]),
        ai("420", "SHIP TO POST", [.x(upTo: 20)], excludes: ["421"]),
        ai("421", "SHIP TO POST", [.n(3), .x(upTo: 9)], excludes: ["4307"]),
        ai("422", "ORIGIN", [.n(3)], excludes: ["426"]),
        ai("423", "COUNTRY - INITIAL PROCESS", [.n(upTo: 15)], excludes: ["426"]),
        ai("424", "COUNTRY - PROCESS", [.n(3)], excludes: ["426"]),
        ai("425", "COUNTRY - DISASSEMBLY", [.n(upTo: 15)], excludes: ["426"]),
        ai("426", "COUNTRY - FULL PROCESS", [.n(3)]),
        ai("427", "ORIGIN SUBDIVISION", [.x(upTo: 3)]),
        ai("4300", "SHIP TO COMP", [.x(upTo: 35)]),
        ai("4301", "SHIP TO NAME", [.x(upTo: 35)]),
        ai("4302", "SHIP TO ADD1", [.x(upTo: 70)]),
        ai("4303", "SHIP TO ADD2", [.x(upTo: 70)]),
        ai("4304", "SHIP TO SUB", [.x(upTo: 70)]),
        ai("4305", "SHIP TO LOC", [.x(upTo: 70)]),
        ai("4306", "SHIP TO REG", [.x(upTo: 70)]),
        ai("4307", "SHIP TO COUNTRY", [.x(2)]),
        ai("4308", "SHIP TO PHONE", [.x(upTo: 30)]),
        ai("4309", "SHIP TO GEO", [.n(10), .n(10)]),
        ai("4310", "RTN TO COMP", [.x(upTo: 35)]),
        ai("4311", "RTN TO NAME", [.x(upTo: 35)]),
        ai("4312", "RTN TO ADD1", [.x(upTo: 70)]),
        ai("4313", "RTN TO ADD2", [.x(upTo: 70)]),
        ai("4314", "RTN TO SUB", [.x(upTo: 70)]),
        ai("4315", "RTN TO LOC", [.x(upTo: 70)]),
        ai("4316", "RTN TO REG", [.x(upTo: 70)]),
        ai("4317", "RTN TO COUNTRY", [.x(2)]),
        ai("4318", "RTN TO POST", [.x(upTo: 20)]),
        ai("4319", "RTN TO PHONE", [.x(upTo: 30)]),
        ai("4320", "SRV DESCRIPTION", [.x(upTo: 35)]),
        ai("4321", "DANGEROUS GOODS", [.n(1, .yesNo)]),
        ai("4322", "AUTH TO LEAVE", [.n(1, .yesNo)]),
        ai("4323", "SIG REQUIRED", [.n(1, .yesNo)]),
        ai("4324", "NOT BEF DEL DT", [date0, .n(4, .time)]),
        ai("4325", "NOT AFT DEL DT", [date0, .n(4, .time)]),
        ai("4326", "REL DATE", [date]),
        ai("4330", "MAX TEMP F.", [.n(6), optionalMinus], excludes: ["4331"]),
        ai("4331", "MAX TEMP C.", [.n(6), optionalMinus], excludes: ["4330"]),
        ai("4332", "MIN TEMP F.", [.n(6), optionalMinus], excludes: ["4333"]),
        ai("4333", "MIN TEMP C.", [.n(6), optionalMinus], excludes: ["4332"]),
        ai("7001", "NSN", [.n(13)]),
        ai("7002", "MEAT CUT", [.x(upTo: 30)]),
        ai("7003", "EXPIRY TIME", [date, .n(4, .time)]),
        ai("7004", "ACTIVE POTENCY", [.n(upTo: 4)]),
        ai("7005", "CATCH AREA", [.x(upTo: 12)]),
        ai("7006", "FIRST FREEZE DATE", [date]),
        ai("7007", "HARVEST DATE", [date, date.orAbsent]),
        ai("7008", "AQUATIC SPECIES", [.x(upTo: 3)]),
        ai("7009", "FISHING GEAR TYPE", [.x(upTo: 10)]),
        ai("7010", "PROD METHOD", [.x(upTo: 2)]),
        ai("7011", "TEST BY DATE", [date, GS1Component.n(4, .time).orAbsent]),
        ai("7020", "REFURB LOT", [.x(upTo: 20)]),
        ai("7021", "FUNC STAT", [.x(upTo: 20)]),
        ai("7022", "REV STAT", [.x(upTo: 20)]),
        ai("7023", "GIAI - ASSEMBLY", [.x(upTo: 30)]),
        range(7030, 7039, digits: 4, "PROCESSOR", [.n(3), .x(upTo: 27)]),
        ai("7040", "UIC+EXT", [.n(1), .x(1), .x(1), .x(1)]),
        ai("710", "NHRN PZN", [.x(upTo: 20)]),
        ai("711", "NHRN CIP", [.x(upTo: 20)]),
        ai("712", "NHRN CN", [.x(upTo: 20)]),
        ai("713", "NHRN DRN", [.x(upTo: 20)]),
        ai("714", "NHRN AIM", [.x(upTo: 20)]),
        ai("715", "NHRN NDC", [.x(upTo: 20)]),
        range(7230, 7239, digits: 4, "CERT", [.x(2), .x(upTo: 28)]),
        ai("7240", "PROTOCOL", [.x(upTo: 20)]),
        ai("7241", "AIDC MEDIA TYPE", [.n(2)]),
        ai("7242", "VCN", [.x(upTo: 25)]),
        ai("8001", "DIMENSIONS", [.n(4, .nonZero), .n(5, .nonZero), .n(3, .nonZero), .n(1, .winding), .n(1)]),
        ai("8002", "CMT No.", [.x(upTo: 20)]),
        ai("8003", "GRAI", [.n(1, .zero), .n(13, .checkDigit), GS1Component.x(upTo: 16).orAbsent]),
        ai("8004", "GIAI", [.x(upTo: 30)]),
        ai("8005", "PRICE PER UNIT", [.n(6)]),
        ai("8006", "ITIP", [.n(14, .checkDigit), .n(4, .pieceOfTotal)], excludes: ["01", "37"]),
        ai("8007", "IBAN", [.x(upTo: 34)]),
        ai("8008", "PROD TIME", [.n(8, .dateHour), GS1Component(characters: .numeric, minLength: 2, maxLength: 4, optional: true, rule: .minutesSeconds)]),
        ai("8009", "OPTSEN", [.x(upTo: 50)]),
        ai("8010", "CPID", [.y(upTo: 30)]),
        ai("8011", "CPID SERIAL", [.n(upTo: 12)]),
        ai("8012", "VERSION", [.x(upTo: 20)]),
        ai("8013", "GMN", [.x(upTo: 25)]),
        ai("8017", "GSRN - PROVIDER", [.n(18, .checkDigit)], excludes: ["8018"]),
        ai("8018", "GSRN - RECIPIENT", [.n(18, .checkDigit)], excludes: ["8017"]),
        ai("8019", "SRIN", [.n(upTo: 10)]),
        ai("8020", "REF No.", [.x(upTo: 25)]),
        ai("8026", "ITIP CONTENT", [.n(14, .checkDigit), .n(4, .pieceOfTotal)], excludes: ["02", "8006"]),
        ai("8030", "DIGSIG", [.z(upTo: 90)]),
        ai("8110", "COUPON", [.x(upTo: 70)]),
        ai("8111", "POINTS", [.n(4)]),
        ai("8112", "COUPON", [.x(upTo: 70)]),
        ai("8200", "PRODUCT URL", [.x(upTo: 70)]),
        ai("90", "INTERNAL", [.x(upTo: 30)]),
        range(91, 99, digits: 2, "INTERNAL", [.x(upTo: 90)]),
    ]
}
