import EdgeStore
import FoundationEssentials
import GRDB

/// Enrollment's section of the station export (issue #27 item 5; models/station-export.schema.json):
/// `enrollments` with their transitions, and `enrollment_attempts` (validation times, ENR-7).
///
/// Decision, ids: an enrollment's local id is exported only so the importer can rewrite the
/// names that carry it: the stream `enrollment:<id>` and the credentials
/// `enrollment.<id>.access|refresh` of outbox entries, dead letters, conflicts and holds. So this
/// section is imported before the store's rows and hands them its renames. Enrollments are
/// matched by sponsor, masked code, backend and creation time; one linked to another server
/// enrollment here refuses the import.
public struct EnrollmentArchive: StationArchiveSection {
    public init() {}

    public let keys = ["enrollments", "enrollment_attempts"]
    public let importsFirst = true

    /// An enrollment and its history (ENR-11, ENR-12).
    public struct EnrollmentRow: Codable, Sendable, Equatable {
        public var id: Int64
        public var state: String
        public var sponsorID: String
        public var maskedCode: String
        public var backendURL: String
        public var serverEnrollmentID: String?
        public var patientID: String?
        public var sponsorURL: String?
        public var sponsorDisplay: String?
        public var studyStartRequired: Bool?
        public var createdAt: Double
        public var updatedAt: Double
        public var transitions: [TransitionRow]

        enum CodingKeys: String, CodingKey {
            case id, state, transitions
            case sponsorID = "sponsor_id", maskedCode = "masked_code", backendURL = "backend_url"
            case serverEnrollmentID = "server_enrollment_id", patientID = "patient_id", sponsorURL = "sponsor_url"
            case sponsorDisplay = "sponsor_display", studyStartRequired = "study_start_required"
            case createdAt = "created_at", updatedAt = "updated_at"
        }

        public init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            id = try c.decode(Int64.self, forKey: .id)
            state = try c.decode(String.self, forKey: .state)
            sponsorID = try c.decode(String.self, forKey: .sponsorID)
            maskedCode = try c.decode(String.self, forKey: .maskedCode)
            backendURL = try c.decode(String.self, forKey: .backendURL)
            serverEnrollmentID = try c.decodeIfPresent(String.self, forKey: .serverEnrollmentID)
            patientID = try c.decodeIfPresent(String.self, forKey: .patientID)
            sponsorURL = try c.decodeIfPresent(String.self, forKey: .sponsorURL)
            sponsorDisplay = try c.decodeIfPresent(String.self, forKey: .sponsorDisplay)
            studyStartRequired = try c.decodeIfPresent(Bool.self, forKey: .studyStartRequired)
            createdAt = try c.decode(Double.self, forKey: .createdAt)
            updatedAt = try c.decode(Double.self, forKey: .updatedAt)
            transitions = try c.decodeList(.transitions, max: StationArchiveLimits.maxNestedRows)
        }

        init(id: Int64, state: String, sponsorID: String, maskedCode: String, backendURL: String, serverEnrollmentID: String?,
             patientID: String?, sponsorURL: String?, sponsorDisplay: String?, studyStartRequired: Bool?, createdAt: Double,
             updatedAt: Double, transitions: [TransitionRow]) {
            self.id = id; self.state = state; self.sponsorID = sponsorID; self.maskedCode = maskedCode; self.backendURL = backendURL
            self.serverEnrollmentID = serverEnrollmentID; self.patientID = patientID; self.sponsorURL = sponsorURL
            self.sponsorDisplay = sponsorDisplay; self.studyStartRequired = studyStartRequired
            self.createdAt = createdAt; self.updatedAt = updatedAt; self.transitions = transitions
        }
    }

    public struct TransitionRow: Codable, Sendable, Equatable {
        public var fromState: String
        public var toState: String
        public var at: Double
        public var cause: String

        enum CodingKeys: String, CodingKey {
            case at, cause
            case fromState = "from_state", toState = "to_state"
        }
    }

    public func export(_ db: Database) throws -> [String: [ArchiveValue]] {
        let transitions = Dictionary(grouping: try Row.fetchAll(db, sql: "SELECT * FROM enrollment_transitions ORDER BY id"),
                                     by: { (row: Row) -> Int64 in row["enrollment_id"] })
        let enrollments = try Row.fetchAll(db, sql: "SELECT * FROM enrollments ORDER BY id").map { r in
            let id: Int64 = r["id"]
            let studyStart: Int? = r["study_start_required"]
            return EnrollmentRow(
                id: id, state: r["state"], sponsorID: r["sponsor_id"], maskedCode: r["masked_code"], backendURL: r["backend_url"],
                serverEnrollmentID: r["server_enrollment_id"], patientID: r["patient_id"], sponsorURL: r["sponsor_url"],
                sponsorDisplay: r["sponsor_display"], studyStartRequired: studyStart.map { $0 != 0 },
                createdAt: r["created_at"], updatedAt: r["updated_at"],
                transitions: (transitions[id] ?? []).map { t in
                    TransitionRow(fromState: t["from_state"], toState: t["to_state"], at: t["at"], cause: t["cause"])
                })
        }
        let attempts = try Double.fetchAll(db, sql: "SELECT at FROM enrollment_attempts ORDER BY id")
        return ["enrollments": try ArchiveValue.list(enrollments), "enrollment_attempts": try ArchiveValue.list(attempts)]
    }

    public func validate(_ archive: StationArchive) throws(StationArchiveError) {
        let enrollments: [EnrollmentRow] = try archive.rows("enrollments")
        _ = try archive.rows("enrollment_attempts", as: Double.self)
        let ids = enrollments.map(\.id)
        guard Set(ids).count == ids.count else { throw StationImport.invalid("an enrollment id appears twice") }
        let known = Set(ids)
        let names = archive.outbox.flatMap { [$0.stream, $0.credential] } + archive.deadLetters.flatMap { [$0.stream, $0.credential] }
            + archive.conflicts.flatMap { [$0.stream, $0.credential] } + archive.credentialHolds.map { Optional($0.credential) }
        for name in names.compactMap({ $0 }) {
            if let id = Self.id(in: name), !known.contains(id) {
                throw StationImport.invalid("\(name) names enrollment \(id), which the export does not carry")
            }
        }
    }

    public func apply(_ archive: StationArchive, _ db: Database, report: inout StationImportReport) throws -> (@Sendable (String) -> String)? {
        var map: [Int64: Int64] = [:]
        for enrollment in try archive.rows("enrollments", as: EnrollmentRow.self) {
            let existing = try Row.fetchOne(db, sql: """
                SELECT id, server_enrollment_id FROM enrollments WHERE sponsor_id = ? AND masked_code = ? AND backend_url = ? AND created_at = ?
                """, arguments: [enrollment.sponsorID, enrollment.maskedCode, enrollment.backendURL, enrollment.createdAt])
            if let existing {
                let serverID: String? = existing["server_enrollment_id"]
                if let serverID, let theirs = enrollment.serverEnrollmentID, serverID != theirs {
                    throw StationImport.conflict("enrollment \(enrollment.id) of the export is linked to another server enrollment here")
                }
                map[enrollment.id] = existing["id"]
                report.count("enrollments", inserted: false)
                continue
            }
            try db.execute(sql: """
                INSERT INTO enrollments (state, sponsor_id, masked_code, backend_url, server_enrollment_id, patient_id, sponsor_url,
                    sponsor_display, study_start_required, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """, arguments: [enrollment.state, enrollment.sponsorID, enrollment.maskedCode, enrollment.backendURL,
                                 enrollment.serverEnrollmentID, enrollment.patientID, enrollment.sponsorURL, enrollment.sponsorDisplay,
                                 enrollment.studyStartRequired.map { $0 ? 1 : 0 }, enrollment.createdAt, enrollment.updatedAt])
            let id = db.lastInsertedRowID
            map[enrollment.id] = id
            report.count("enrollments", inserted: true)
            for transition in enrollment.transitions {
                try db.execute(sql: "INSERT INTO enrollment_transitions (enrollment_id, from_state, to_state, at, cause) VALUES (?, ?, ?, ?, ?)",
                               arguments: [id, transition.fromState, transition.toState, transition.at, transition.cause])
                report.count("enrollment_transitions", inserted: true)
            }
        }
        for at in try archive.rows("enrollment_attempts", as: Double.self) {
            let present = try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM enrollment_attempts WHERE at = ?)", arguments: [at]) ?? false
            if !present { try db.execute(sql: "INSERT INTO enrollment_attempts (at) VALUES (?)", arguments: [at]) }
            report.count("enrollment_attempts", inserted: !present)
        }
        let renames = map
        return { name in Self.rewrite(name, renames) }
    }

    /// The enrollment id a stream or credential name carries (`Enrollment.stream`, `accessSecret`,
    /// `refreshSecret`), if it is one of enrollment's names.
    static func id(in name: String) -> Int64? {
        if name.hasPrefix("enrollment:") { return Int64(name.dropFirst("enrollment:".count)) }
        return Enrollment.id(ofCredential: name)
    }

    static func rewrite(_ name: String, _ map: [Int64: Int64]) -> String {
        guard let old = id(in: name), let new = map[old] else { return name }
        if name.hasPrefix("enrollment:") { return "enrollment:\(new)" }
        let kind = name.split(separator: ".", omittingEmptySubsequences: false)[2]
        return "enrollment.\(new).\(kind)"
    }
}
