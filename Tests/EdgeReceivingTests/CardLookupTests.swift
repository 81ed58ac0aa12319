import EdgeContract
import EdgeReceiving
import EdgeStandin
import EdgeTestSupport
import Foundation
import Testing

/// RCV-4..6 over real HTTP to the stand-in: the vendor card (another tenant refused before any
/// request), the material card, products with their check digit verified.
@Suite(.serialized) struct CardLookupTests {
    static func card(tenant: String) -> String {
        #"{"type":"VENDOR","vendor_id":"\#(DemoData.vendorID)","tenant_id":"\#(tenant)"}"#
    }

    @Test func aVendorCardOfAnotherTenantIsRefusedWithNothingSent() async throws {
        try await withStopping(DockFixture()) { fixture in
            let error = await #expect(throws: ReceivingError.self) { try await fixture.dock.vendor(cardText: Self.card(tenant: DockFixture.otherTenant)) }
            #expect(error?.code == .wrongTenant)
            #expect(error?.message == "This vendor card belongs to another organisation (tenant \(DockFixture.otherTenant)), not this station's (\(DemoData.tenantID)); it was not looked up.")
            #expect(fixture.requests(APIPath.scanQR) == 0)

            let vendor = try await fixture.dock.vendor(cardText: Self.card(tenant: DemoData.tenantID))
            #expect(vendor.name == "Nordhafen Industrial Supply GmbH" && vendor.rating == 4.6 && vendor.recentOrders.count == 2)
            #expect(fixture.requests(APIPath.scanQR) == 1)
            let document = LookupDocument(vendor: vendor)
            #expect(document.text.contains { $0.contains("Jana Weber") })
            try PythonCheck.validate(json: try fixture.json(document), schema: PackageFiles.path("models/lookup.schema.json"))
        }
    }

    @Test func theMaterialCardHasStockRecentOrdersAndPriceTrend() async throws {
        try await withStopping(DockFixture()) { fixture in
            let material = try await fixture.dock.material(DemoData.materialCode)
            #expect(material.stockLevel == 340 && material.priceTrend.direction == .rising && material.recentOrders.count == 2)
            try PythonCheck.validate(json: try fixture.json(LookupDocument(material: material)), schema: PackageFiles.path("models/lookup.schema.json"))
            let unknown = await #expect(throws: ReceivingError.self) { try await fixture.dock.material("MAT-XX-0000") }
            #expect(unknown?.code == .notFound)
        }
    }

    @Test func productsAreCheckedThenLookedUpAndNoDataIsAnAnswer() async throws {
        try await withStopping(DockFixture()) { fixture in
            let known = try await fixture.dock.product(DemoData.productGTIN)
            #expect(known.product?.name == "Fineliner pen, black, 0.4 mm" && known.kind == "gtin")
            try PythonCheck.validate(json: try fixture.json(LookupDocument(product: known)), schema: PackageFiles.path("models/lookup.schema.json"))

            let unknown = try await fixture.dock.product("5901234123457")
            #expect(unknown.product == nil)
            #expect(unknown.message == "No product data for GTIN 5901234123457: the backend has none for it.")
            let document = LookupDocument(product: unknown)
            #expect(!document.found)
            try PythonCheck.validate(json: try fixture.json(document), schema: PackageFiles.path("models/lookup.schema.json"))

            let before = fixture.requests(APIPath.scanBarcode)
            let bad = await #expect(throws: ReceivingError.self) { try await fixture.dock.product("4006381333932") }
            #expect(bad?.code == .badCheckDigit)
            #expect(bad?.message == "4006381333932 is not a valid EAN-13: check digit is 2, expected 1.")
            #expect(fixture.requests(APIPath.scanBarcode) == before, "a misread never reaches the backend")
        }
    }

    @Test func theOfflineDockSaysWhyItCannotAsk() async throws {
        try await withStopping(DockFixture()) { fixture in
            fixture.standin.faults.add(.status, pathPrefix: APIPath.scanBarcode, parameters: FaultParameters(status: 503))
            let error = await #expect(throws: ReceivingError.self) { try await fixture.dock.material(DemoData.materialCode) }
            #expect(error?.code == .notAvailableOffline)
        }
    }
}
