/// The keys a configuration file may hold, as a tree (AGT-10): built from the `CodingKeys` the
/// decoders read, so a key no decoder reads (a typo: `station.nmae`) is refused instead of
/// silently skipped. models/edge-config.schema.json describes the same tree; a test keeps the two
/// equal.
public indirect enum ConfigurationKeys: Sendable, Equatable {
    /// A value whose insides are not keys (a string, a number, a list of strings).
    case value
    /// An object that may hold only these keys.
    case object([String: ConfigurationKeys])
    /// An object whose keys are names the operator chooses (camera controls, payload classes),
    /// each holding this shape.
    case map(ConfigurationKeys)
    /// A list of this shape.
    case array(ConfigurationKeys)

    /// A closed object of `keys`' cases, each a plain value unless `nested` gives its shape.
    public static func object<K: CodingKey & CaseIterable & Hashable>(_ keys: K.Type, nested: [K: ConfigurationKeys] = [:]) -> ConfigurationKeys {
        var tree: [String: ConfigurationKeys] = [:]
        for key in K.allCases { tree[key.stringValue] = nested[key] ?? .value }
        return .object(tree)
    }

    /// The known key closest to `key` among `known`, if one is close enough to be a typo of it.
    ///
    /// Decision, what counts as close: the optimal-string-alignment distance (insertions,
    /// deletions, substitutions and swaps of two neighbours, each costing 1), compared without
    /// case, is at most a third of the known key's length, at least 1 and at most 2. So `nmae`
    /// (one swap) suggests `name`, `snyc` suggests `sync`, `stateDir` suggests `state_dir`,
    /// while `colour` suggests nothing: on short keys a distance of 2 would match unrelated
    /// words (`fps` and `fog`). Ties go to the alphabetically first key, so the message is stable.
    public static func suggestion(for key: String, among known: some Sequence<String>) -> String? {
        let typed = Array(key.lowercased())
        var best: (distance: Int, key: String)?
        for candidate in known {
            let limit = min(2, max(1, candidate.count / 3))
            let distance = Self.distance(typed, Array(candidate.lowercased()))
            guard distance <= limit else { continue }
            if let current = best, current.distance < distance || (current.distance == distance && current.key <= candidate) { continue }
            best = (distance, candidate)
        }
        return best?.key
    }

    /// Optimal string alignment distance (Levenshtein plus adjacent transpositions).
    static func distance(_ a: [Character], _ b: [Character]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var table = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { table[i][0] = i }
        for j in 0...b.count { table[0][j] = j }
        for i in 1...a.count {
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                var value = min(table[i - 1][j] + 1, table[i][j - 1] + 1, table[i - 1][j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    value = min(value, table[i - 2][j - 2] + 1)
                }
                table[i][j] = value
            }
        }
        return table[a.count][b.count]
    }
}
