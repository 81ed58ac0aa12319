import EdgeContract
import EdgeFCM
import EdgePush
import Foundation
import XCTest

/// PSH-7: one target, strings-only data, channels, tags, badge in both places, size limit.
final class FCMMessageBuilderTests: XCTestCase {
    static let noon: Int64 = 1_773_144_000  // 2026-03-10 12:00 UTC: outside default quiet hours

    var directory: URL?
    override func tearDown() { directory.map { try? FileManager.default.removeItem(at: $0) } }

    func record(_ type: NotificationType = .approvalPending, priority: NotificationPriority = .high, body: String = "PO-2026-00042 needs you",
                ttl: Int64 = 3600) throws -> (PushStore, NotificationRecord) {
        let (store, directory) = try makePushStore()
        self.directory = directory
        let notification = try PushNotification(userID: "user-1", type: type, priority: priority, title: "Approval", body: body,
                                                deepLink: "/approvals/42", ttlSeconds: ttl, createdAt: Self.noon)
        let accepted = try store.accept(notification, now: Self.noon)
        XCTAssertEqual(accepted.record.status, .queued)
        return (store, accepted.record)
    }

    func message(_ built: FCMMessage) throws -> JSONValue {
        let document = try ContractCoding.decode(JSONValue.self, from: built.body)
        guard case .object(let top) = document else { return try XCTUnwrap(nil, "the FCM body is not a JSON object") }
        XCTAssertEqual(Array(top.keys), ["message"])
        return try XCTUnwrap(document["message"])
    }

    func testShapeTargetsDataAndBadge() throws {
        let (_, record) = try record()
        let built = try FCMMessageBuilder.message(for: record, token: "device-token-1", badge: 7, now: Self.noon + 100)
        let message = try message(built)
        XCTAssertEqual(message["token"]?.stringValue, "device-token-1")
        XCTAssertNil(message["topic"])
        XCTAssertNil(message["condition"])
        guard case .object(let data)? = message["data"] else { return XCTFail("no data") }
        XCTAssertTrue(data.values.allSatisfy { $0.stringValue != nil }, "data values must all be strings")
        XCTAssertEqual(data["badge"]?.stringValue, "7")
        XCTAssertEqual(data["deep_link"]?.stringValue, "/approvals/42")
        XCTAssertEqual(message["notification"]?["title"]?.stringValue, "Approval")
        XCTAssertEqual(message["android"]?["ttl"]?.stringValue, "3500s")
        XCTAssertEqual(message["android"]?["priority"]?.stringValue, "HIGH")
        XCTAssertEqual(message["android"]?["collapse_key"]?.stringValue, record.tag)
        XCTAssertEqual(message["android"]?["notification"]?["channel_id"]?.stringValue, "prokure_approvals")
        XCTAssertEqual(message["android"]?["notification"]?["tag"]?.stringValue, record.tag)
        XCTAssertEqual(message["android"]?["notification"]?["notification_count"], .integer(7))
        let headers = message["apns"]?["headers"]
        XCTAssertEqual(headers?["apns-priority"]?.stringValue, "10")
        XCTAssertEqual(headers?["apns-collapse-id"]?.stringValue, record.tag)
        XCTAssertEqual(headers?["apns-expiration"]?.stringValue, String(Self.noon + 3600))
        XCTAssertEqual(headers?["apns-push-type"]?.stringValue, "alert")
        let aps = message["apns"]?["payload"]?["aps"]
        XCTAssertEqual(aps?["badge"], .integer(7))
        XCTAssertEqual(aps?["alert"]?["body"]?.stringValue, "PO-2026-00042 needs you")
        XCTAssertEqual(aps?["thread-id"]?.stringValue, "approvals")
        XCTAssertEqual(aps?["sound"]?.stringValue, "default")
        XCTAssertLessThanOrEqual(built.body.count, 4096)
    }

    func testChannelsByGroupAndNormalPriority() throws {
        XCTAssertEqual(FCMMessageBuilder.channel(for: .alerts), "prokure_alerts")
        XCTAssertEqual(FCMMessageBuilder.channel(for: .deliveries), "prokure_updates")
        XCTAssertEqual(FCMMessageBuilder.channel(for: .enrollments), "prokure_updates")
        XCTAssertEqual(FCMMessageBuilder.channel(for: .assignments), "prokure_general")
        let (_, record) = try record(.deliveryUpdate, priority: .normal)
        let message = try message(try FCMMessageBuilder.message(for: record, token: "t", badge: 0, now: Self.noon))
        XCTAssertEqual(message["android"]?["notification"]?["channel_id"]?.stringValue, "prokure_updates")
        XCTAssertEqual(message["android"]?["priority"]?.stringValue, "NORMAL")
        XCTAssertEqual(message["apns"]?["headers"]?["apns-priority"]?.stringValue, "5")
    }

    func testTooLargeExpiredAndEmptyTokenAreRefusedBeforeSending() throws {
        let (_, big) = try record(body: String(repeating: "é", count: 500))  // 1000 bytes, twice in the message
        XCTAssertNoThrow(try FCMMessageBuilder.message(for: big, token: "t", badge: 1, now: Self.noon))
        XCTAssertThrowsError(try FCMMessageBuilder.message(for: big, token: String(repeating: "x", count: 2500), badge: 1, now: Self.noon)) { error in
            XCTAssertEqual((error as? FCMError)?.code, .messageTooLarge)
        }
        XCTAssertThrowsError(try FCMMessageBuilder.message(for: big, token: "t", badge: 1, now: Self.noon + 3600)) { error in
            XCTAssertEqual((error as? FCMError)?.code, .invalidMessage)
        }
        XCTAssertThrowsError(try FCMMessageBuilder.message(for: big, token: "", badge: 1, now: Self.noon)) { error in
            XCTAssertEqual((error as? FCMError)?.code, .invalidMessage)
        }
    }

    /// The builder writes its JSON without JSONEncoder (PushSender's hot path): the bytes must be
    /// exactly what `ContractCoding` writes for the same document, escapes and key order included.
    func testBodyBytesAreExactlyContractCodings() throws {
        let awkward = "Say \"hi\" \\ back/slash \u{1}\u{8}\u{c}\n\r\t\u{1f}\u{7f} é 😀 \u{2028} </script>"
        let (store, first) = try record(body: awkward)
        let digestless = try store.accept(try PushNotification(userID: "user-2", type: .kpiAlert, priority: .normal, title: awkward,
                                                               body: "", ttlSeconds: 60, createdAt: Self.noon), now: Self.noon).record
        for (record, badge) in [(first, 0), (digestless, 12_345)] {
            let built = try FCMMessageBuilder.message(for: record, token: "tok/\"en\"", badge: badge, now: Self.noon + 1)
            let reference = try ContractCoding.encode(try ContractCoding.decode(JSONValue.self, from: built.body))
            XCTAssertEqual(String(decoding: built.body, as: UTF8.self), String(decoding: reference, as: UTF8.self))
            XCTAssertEqual(built.body, reference)
        }
    }

    /// The body is written key by key (issue #31): both priorities' fixed parts and data values
    /// of every kind a caller may pass come out as `ContractCoding` writes them.
    func testBodyBytesAreContractCodingsForBothPrioritiesAndAnyData() throws {
        let data: [String: JSONValue] = ["b": .string("x\"y"), "a": .integer(-7), "c": .bool(true), "z": .null, "m": .array([.string("1")])]
        for urgent in [false, true] {
            let built = try FCMMessageBuilder.build(token: "tok", title: "T\u{1}", body: "B/b", data: data, tag: "n-1", channel: "ch",
                                                    thread: "th", urgent: urgent, badge: 3, expiresAt: Self.noon + 60, now: Self.noon)
            let reference = try ContractCoding.encode(try ContractCoding.decode(JSONValue.self, from: built.body))
            XCTAssertEqual(String(decoding: built.body, as: UTF8.self), String(decoding: reference, as: UTF8.self))
            XCTAssertEqual(try message(built)["apns"]?["headers"]?["apns-priority"]?.stringValue, urgent ? "10" : "5")
            XCTAssertEqual(try message(built)["android"]?["priority"]?.stringValue, urgent ? "HIGH" : "NORMAL")
        }
    }

    func testCollapseIDFitsAPNsLimit() throws {
        let (_, record) = try record()
        XCTAssertLessThanOrEqual(record.tag.utf8.count, FCMMessageBuilder.maxCollapseIDBytes)
        XCTAssertEqual(FCMMessageBuilder.maxCollapseIDBytes, 64)
    }
}
