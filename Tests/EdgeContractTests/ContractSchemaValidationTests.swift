import EdgeContract
import Foundation
import XCTest

/// The document is valid OpenAPI 3.1 (openapi-spec-validator, required: missing, the test fails), its schemas are
/// valid JSON Schema 2020-12, its examples fit their schemas, and what the Swift types encode fits
/// them too.
final class ContractSchemaValidationTests: XCTestCase {
    func testDocumentExamplesAndSwiftOutputAreValid() throws {
        XCTAssertTrue(PythonValidator.hasJSONSchema(), "python3 has no jsonschema module: run .ci/install-deps")
        let document = try ContractDocument()

        // Swift's own output: every example after a round trip, plus values built in Swift with
        // the optional members left out.
        var values: [JSONValue] = []
        for body in document.bodies() {
            guard let schemaName = body.schemaName, let roundTrip = ContractTypeTable.roundTrips[schemaName] else { continue }
            for (name, example) in body.examples {
                let encoded = try roundTrip(try ContractCoding.encode(example))
                values.append(entry(schemaName, "\(body.label) \(name)", try ContractCoding.decode(JSONValue.self, from: encoded)))
            }
        }
        for (schemaName, label, value) in try builtValues() {
            values.append(entry(schemaName, label, value))
        }

        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("edge-contract-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let valuesURL = directory.appendingPathComponent("values.json")
        try Data(try ContractCoding.encode(JSONValue.array(values))).write(to: valuesURL)

        let outcome = try PythonValidator.validate(document: ContractDocument.fileURL, values: valuesURL)
        print(outcome.output)
        XCTAssertEqual(outcome.status, 0, outcome.output)
        XCTAssertTrue(outcome.output.contains("Swift values validated: \(values.count)"), outcome.output)
        XCTAssertTrue(outcome.output.contains("openapi-spec-validator: document valid"), outcome.output)
    }

    private func entry(_ schema: String, _ label: String, _ value: JSONValue) -> JSONValue {
        .object(["schema": .string(schema), "label": .string(label), "value": value])
    }

    private func json<T: Encodable>(_ value: T) throws -> JSONValue {
        try ContractCoding.decode(JSONValue.self, from: try ContractCoding.encode(value))
    }

    private func builtValues() throws -> [(String, String, JSONValue)] {
        let order = PurchaseOrder(
            poNumber: "PO-2026-00043", vendorID: "3f1c2a9e-8b7d-4c5e-9f10-2a3b4c5d6e7f", status: .partiallyReceived,
            lines: [PurchaseOrderLine(lineNo: 1, item: "MAT-ST-4471", description: "Steel bracket", ordered: 60, received: 20, unit: "EA")],
            updatedAt: "2026-11-20T08:00:00Z")
        return [
            ("APIErrorEnvelope", "error without details", try json(APIErrorEnvelope(error: APIError(.unauthorized, "A valid bearer token is required")))),
            ("GRNConfirmRequest", "GRN without photos or flags", try json(GRNConfirmRequest(
                poNumber: "PO-2026-00042", confirmedAt: "2026-11-20T09:14:03+01:00", lines: [GRNLine(lineNo: 1, received: 0.5)])),
            ),
            ("EnrollmentLinkResponse", "link without refresh token", try json(EnrollmentLinkResponse(
                accessToken: "at.x", sponsorURL: "https://s1.portal.invalid/api", patientID: "pat-1", enrollmentID: "enr-1",
                sponsor: SponsorDisplayConfig(name: "S", phone: "", email: "", colors: SponsorColors(primary: "#000000", secondary: "#FFFFFF")),
                studyStartRequired: false))),
            ("ScanBarcodeResponse", "PO built in Swift", try json(ScanBarcodeResponse.purchaseOrder(order))),
            ("GRNConflictError", "conflict built in Swift", try json(APIErrorEnvelope(error: APIError(
                .conflict, "already received", details: try json(GRNConflictDetails(serverVersion: order, changes: "Line 1 changed."))))),
            ),
            ("DeviceRegistrationRequest", "registration built in Swift", try json(DeviceRegistrationRequest(
                deviceUUID: "5b0e8c1d-2f4a-4e6b-8d3c-7a9f1e2d4c6b", appVersion: "1.0.0", osVersion: "Debian 12", timezone: "UTC"))),
        ]
    }
}
