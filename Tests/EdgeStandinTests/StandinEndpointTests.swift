import EdgeContract
import EdgeStandin
import XCTest

/// Each endpoint with the demo data, checked against the document's examples where they describe
/// the same record.
final class StandinEndpointTests: StandinTestCase {
    func testBarcodeLookupsAnswerTheDocumentedExamples() async throws {
        for (value, name) in [(DemoData.openOrder, "purchase_order"), (DemoData.materialCode, "material"), (DemoData.productGTIN, "product")] {
            let answer = try await client.post(APIPath.scanBarcode, ScanLookupRequest(value: value)).response()
            XCTAssertEqual(answer.status, 200, value)
            XCTAssertEqual(answer.json, try documentExample("post", APIPath.scanBarcode, name: name), value)
            _ = try answer.decode(ScanBarcodeResponse.self)
        }
        let partial = try await client.post(APIPath.scanBarcode, ScanLookupRequest(value: DemoData.partialOrder)).response()
        guard case .purchaseOrder(let order) = try partial.decode(ScanBarcodeResponse.self) else { return XCTFail("not a PO") }
        XCTAssertEqual(order.status, .partiallyReceived)
        XCTAssertEqual(order.lines.first?.received, 20)
    }

    func testBarcodeLookupFailures() async throws {
        let unknownOrder = try await client.post(APIPath.scanBarcode, ScanLookupRequest(value: "PO-2026-09999")).response()
        XCTAssertEqual(unknownOrder.status, 404)
        XCTAssertEqual(unknownOrder.errorCode, "NOT_FOUND")
        let badCheckDigit = try await client.post(APIPath.scanBarcode, ScanLookupRequest(value: "4006381333932")).response()
        XCTAssertEqual(badCheckDigit.status, 400)
        let unknown = try await client.post(APIPath.scanBarcode, ScanLookupRequest(value: "PAL-000123")).response()
        XCTAssertEqual(unknown.status, 404)
        let malformed = try await client.send("POST", APIPath.scanBarcode, body: Array(#"{"val":1}"#.utf8)).response()
        XCTAssertEqual(malformed.status, 400)
        XCTAssertEqual(malformed.errorCode, "INVALID_REQUEST")
        let wrongMethod = try await client.get(APIPath.scanBarcode).response()
        XCTAssertEqual(wrongMethod.status, 405)
        XCTAssertEqual(wrongMethod.header("Allow"), "POST")
    }

    func testVendorQRLookup() async throws {
        let card = #"{"type":"VENDOR","vendor_id":"\#(DemoData.vendorID)","tenant_id":"\#(DemoData.tenantID)"}"#
        let answer = try await client.post(APIPath.scanQR, ScanLookupRequest(value: card)).response()
        XCTAssertEqual(answer.status, 200)
        XCTAssertEqual(answer.json, try documentExample("post", APIPath.scanQR, name: "vendor"))
        XCTAssertEqual(try answer.decode(VendorInfo.self).contact.name, "Jana Weber")

        let otherTenant = #"{"type":"VENDOR","vendor_id":"\#(DemoData.vendorID)","tenant_id":"1b2c3d4e-5f6a-4b7c-8d9e-0f1a2b3c4d5e"}"#
        let refused = try await client.post(APIPath.scanQR, ScanLookupRequest(value: otherTenant)).response()
        XCTAssertEqual(refused.status, 403)
        XCTAssertEqual(refused.errorCode, "WRONG_TENANT")

        let unknownVendor = #"{"type":"VENDOR","vendor_id":"00000000-0000-4000-8000-000000000000","tenant_id":"\#(DemoData.tenantID)"}"#
        let missing = try await client.post(APIPath.scanQR, ScanLookupRequest(value: unknownVendor)).response()
        XCTAssertEqual(missing.status, 404)

        let notACard = try await client.post(APIPath.scanQR, ScanLookupRequest(value: "https://example.invalid")).response()
        XCTAssertEqual(notACard.status, 400)
    }

    func testDeviceRegistrationKeepsTheFirstTime() async throws {
        let request = DeviceRegistrationRequest(deviceUUID: client.deviceID, appVersion: "1.0.0", osVersion: "Debian 12", timezone: "Europe/Berlin")
        let first = try await client.post(APIPath.deviceRegister, request).response().decode(DeviceRegistrationResponse.self)
        XCTAssertEqual(first.deviceUUID, client.deviceID)
        var upgraded = request
        upgraded.appVersion = "1.1.0"
        let second = try await client.post(APIPath.deviceRegister, upgraded).response().decode(DeviceRegistrationResponse.self)
        XCTAssertEqual(second, first)
        var wrongPlatform = request
        wrongPlatform.platform = "ANDROID"
        let refused = try await client.post(APIPath.deviceRegister, wrongPlatform).response()
        XCTAssertEqual(refused.status, 400)
    }

    func testEnrollmentLinkStatusAndRefresh() async throws {
        let anonymous = StandinClient(port: client.port, token: nil)
        // Formatted as displayed: normalised like ENR-2.
        let linked = try await anonymous.post(APIPath.enrollmentLink, EnrollmentLinkRequest(linkingCode: "AB-7KX-M4PQR", deviceUUID: client.deviceID))
            .response()
        XCTAssertEqual(linked.status, 200)
        let link = try linked.decode(EnrollmentLinkResponse.self)
        XCTAssertEqual(link.enrollmentID, "enr-ab-0001")
        XCTAssertTrue(link.studyStartRequired)
        XCTAssertEqual(link.sponsorURL, "https://s1.portal.invalid/api")
        let refreshToken = try XCTUnwrap(link.refreshToken)

        let withAccess = StandinClient(port: client.port, token: link.accessToken)
        let status = try await withAccess.get(APIPath.enrollmentStatus).response().decode(EnrollmentStatusResponse.self)
        XCTAssertEqual(status.status, .studyStartPending)
        standin.backend.approveStudyStart(enrollmentID: link.enrollmentID)
        let approved = try await withAccess.get(APIPath.enrollmentStatus).response().decode(EnrollmentStatusResponse.self)
        XCTAssertEqual(approved.status, .enrolled)

        // Refresh takes the refresh token, not the access token.
        let wrongToken = try await withAccess.post(APIPath.enrollmentRefresh, EnrollmentRefreshRequest(enrollmentID: link.enrollmentID)).response()
        XCTAssertEqual(wrongToken.status, 401)
        let withRefresh = StandinClient(port: client.port, token: refreshToken)
        let refreshed = try await withRefresh.post(APIPath.enrollmentRefresh, EnrollmentRefreshRequest(enrollmentID: link.enrollmentID))
            .response().decode(EnrollmentRefreshResponse.self)
        XCTAssertNotEqual(refreshed.accessToken, link.accessToken)
        // Rotation: the old tokens stop working.
        let oldAccess = try await withAccess.get(APIPath.enrollmentStatus).response()
        XCTAssertEqual(oldAccess.status, 401)
        let newAccess = try await StandinClient(port: client.port, token: refreshed.accessToken).get(APIPath.enrollmentStatus).response()
        XCTAssertEqual(newAccess.status, 200)

        // The same station may link again (its first answer may have been lost); another may not.
        let again = try await anonymous.post(APIPath.enrollmentLink, EnrollmentLinkRequest(linkingCode: DemoData.linkingCode, deviceUUID: client.deviceID)).response()
        XCTAssertEqual(again.status, 200)
        let otherStation = try await anonymous.post(
            APIPath.enrollmentLink, EnrollmentLinkRequest(linkingCode: DemoData.linkingCode, deviceUUID: "11111111-2222-4333-8444-555555555555")).response()
        XCTAssertEqual(otherStation.status, 400)
        XCTAssertEqual(otherStation.errorCode, "INVALID_LINKING_CODE")
    }

    func testInvalidAndExpiredLinkingCodesGetOneAnswer() async throws {
        let anonymous = StandinClient(port: client.port, token: nil)
        for code in [DemoData.expiredCode, "AB7KXM4PQX", "XX3HJ6K8W9"] {
            let answer = try await anonymous.post(APIPath.enrollmentLink, EnrollmentLinkRequest(linkingCode: code, deviceUUID: client.deviceID)).response()
            XCTAssertEqual(answer.status, 400, code)
            XCTAssertEqual(answer.errorCode, "INVALID_LINKING_CODE", code)
            XCTAssertEqual(answer.json?["error"]?["message"], .string("Invalid linking code"), code)
        }
        let reenrollment = try await anonymous.post(APIPath.enrollmentLink, EnrollmentLinkRequest(linkingCode: DemoData.reenrollmentCode, deviceUUID: client.deviceID))
            .response().decode(EnrollmentLinkResponse.self)
        XCTAssertFalse(reenrollment.studyStartRequired)
        XCTAssertEqual(reenrollment.patientID, "pat-7d41c2e0")
    }

    func testStatusWithAStaticTokenNeedsAnEnrollmentID() async throws {
        let unnamed = try await client.get(APIPath.enrollmentStatus).response()
        XCTAssertEqual(unnamed.status, 404)
        let named = try await client.get("\(APIPath.enrollmentStatus)?enrollment_id=enr-cd-0001").response().decode(EnrollmentStatusResponse.self)
        XCTAssertEqual(named.patientID, "pat-3b9e51aa")
    }

    func testPullPagesThroughTheChangeLogWithAnOpaqueCursor() async throws {
        for index in 1...5 {
            standin.backend.appendChange(stream: "notes", kind: "NOTIFICATION", payload: .object(["n": .integer(Int64(index))]))
        }
        var cursor: String?
        var seen: [JSONValue] = []
        var pages = 0
        repeat {
            let path = APIPath.syncPull + "?limit=2" + (cursor.map { "&cursor=\($0)" } ?? "")
            let page = try await client.get(path).response().decode(SyncPullResponse.self)
            seen += page.changes.map(\.payload)
            pages += 1
            XCTAssertFalse(page.nextCursor.contains("standin"), "the cursor is opaque, not readable text")
            cursor = page.nextCursor
            if !page.hasMore { break }
        } while pages < 10
        XCTAssertEqual(pages, 3)
        XCTAssertEqual(seen, (1...5).map { .object(["n": .integer(Int64($0))]) })
        // Nothing new after the last cursor; new changes appear after it.
        let empty = try await client.get("\(APIPath.syncPull)?cursor=\(cursor ?? "")").response().decode(SyncPullResponse.self)
        XCTAssertEqual(empty.changes, [])
        XCTAssertFalse(empty.hasMore)
        standin.backend.appendChange(stream: "notes", kind: "NOTIFICATION", payload: .integer(6))
        let next = try await client.get("\(APIPath.syncPull)?cursor=\(cursor ?? "")").response().decode(SyncPullResponse.self)
        XCTAssertEqual(next.changes.map(\.payload), [.integer(6)])

        let bad = try await client.get("\(APIPath.syncPull)?cursor=not-a-cursor").response()
        XCTAssertEqual(bad.status, 400)
        let badLimit = try await client.get("\(APIPath.syncPull)?limit=0").response()
        XCTAssertEqual(badLimit.status, 400)
    }
}
