import EdgeContract
import XCTest

/// Every example of every body in models/openapi.json decodes into its Swift type and encodes
/// back to the same JSON (SYN-10): the document and the Swift types say the same thing.
final class ContractRoundTripTests: XCTestCase {
    func testEveryBodyHasASchemaASwiftTypeAndExamples() throws {
        let document = try ContractDocument()
        let bodies = document.bodies()
        XCTAssertGreaterThan(bodies.count, 20)
        for body in bodies {
            guard let schemaName = body.schemaName else {
                XCTFail("\(body.label): the schema is not a $ref to components/schemas")
                continue
            }
            XCTAssertNotNil(ContractTypeTable.roundTrips[schemaName], "\(body.label): no Swift type for schema \(schemaName)")
            XCTAssertFalse(body.examples.isEmpty, "\(body.label): no examples")
        }
    }

    func testEveryExampleRoundTripsThroughItsSwiftType() throws {
        let document = try ContractDocument()
        var checked = 0
        for body in document.bodies() {
            guard let schemaName = body.schemaName, let roundTrip = ContractTypeTable.roundTrips[schemaName] else { continue }
            for (name, example) in body.examples.sorted(by: { $0.key < $1.key }) {
                do {
                    let encoded = try roundTrip(try ContractCoding.encode(example))
                    let back = try ContractCoding.decode(JSONValue.self, from: encoded)
                    XCTAssertEqual(back.normalized, example.normalized, "\(body.label) example \(name) changed in a round trip through \(schemaName)")
                    checked += 1
                } catch {
                    XCTFail("\(body.label) example \(name) does not decode as \(schemaName): \(error)")
                }
            }
        }
        XCTAssertGreaterThan(checked, 40)
    }

    func testATaggedBodyIsNotReadAsAnotherType() throws {
        let product = try ContractCoding.encode(ProductInfo(gtin: "4006381333931", name: "Fineliner"))
        XCTAssertThrowsError(try ContractCoding.decode(VendorInfo.self, from: product))
        XCTAssertThrowsError(try ContractCoding.decode(PurchaseOrder.self, from: product))
        let lookup = try ContractCoding.decode(ScanBarcodeResponse.self, from: product)
        XCTAssertEqual(lookup, .product(ProductInfo(gtin: "4006381333931", name: "Fineliner")))
        XCTAssertEqual(lookup.type, .product)
        let vendor = Array(#"{"type":"VENDOR"}"#.utf8)
        XCTAssertThrowsError(try ContractCoding.decode(ScanBarcodeResponse.self, from: vendor))
    }

    func testOptionalMembersAreOmittedNotNull() throws {
        let line = GRNLine(lineNo: 1, received: 3)
        let json = String(decoding: try ContractCoding.encode(line), as: UTF8.self)
        XCTAssertEqual(json, #"{"line_no":1,"received":3}"#)
    }
}
