/// How finely a unit is counted (RCV-2: "within the unit's precision").
///
/// Decision: the contract carries no precision, so the station knows the common units: pieces,
/// packs and rolls are whole numbers; length, area, volume and mass take up to 3 decimals
/// (a millimetre, a gram, a millilitre); an unknown unit takes up to 3 decimals too, so a
/// backend's new unit is usable without an update.
public enum UnitPrecision {
    static let wholeUnits: Set<String> = ["EA", "PC", "PCS", "PCE", "UNIT", "BOX", "BX", "CTN", "CARTON", "PK", "PACK", "PAL",
                                          "PALLET", "ROLL", "RL", "SET", "PR", "PAIR", "DZ", "BAG", "CAN", "BTL", "DRUM"]

    public static func decimals(_ unit: String) -> Int {
        wholeUnits.contains(unit.uppercased()) ? 0 : 3
    }

    /// True when `value` has no more than `decimals(unit)` decimals, within a tolerance so that
    /// binary fractions such as 0.1 are not misjudged.
    public static func fits(_ value: Double, unit: String) -> Bool {
        let allowed = decimals(unit)
        let scaled = value * pow10(allowed)
        return abs(scaled - scaled.rounded()) < 1e-6 * max(1, abs(scaled))
    }

    private static func pow10(_ n: Int) -> Double {
        var result = 1.0
        for _ in 0..<n { result *= 10 }
        return result
    }
}
