import EdgeContract
import EdgeStandin
import XCTest

final class StandinLifecycleTests: XCTestCase {
    func testStartsOnAFreeLoopbackPortAndStops() async throws {
        let standin = Standin()
        let port = try await standin.start()
        XCTAssertGreaterThan(port, 0)
        XCTAssertEqual(standin.port, port)
        XCTAssertEqual(standin.baseURL, "http://127.0.0.1:\(port)")
        let answer = try await StandinClient(port: port, token: nil).get(APIPath.syncPull).response()
        XCTAssertEqual(answer.status, 401)
        await standin.stop()
        XCTAssertNil(standin.port)
        await standin.stop()  // twice is fine
        do {
            _ = try await StandinClient(port: port, token: nil).get(APIPath.syncPull).response()
            XCTFail("still answering after stop")
        } catch {}
    }

    func testRefusesToBindAnythingButLoopback() async throws {
        for host in ["0.0.0.0", "192.168.1.10", "::", "localhost", "127.0.0.2"] {
            let standin = Standin(configuration: StandinConfiguration(host: host))
            do {
                try await standin.start()
                await standin.stop()
                XCTFail("bound \(host)")
            } catch let error as StandinError {
                XCTAssertEqual(error.code, .notLoopback, host)
            }
            XCTAssertNil(standin.port)
        }
    }

    func testASecondStartAndABusyPortAreErrors() async throws {
        let first = Standin()
        let port = try await first.start()
        do {
            try await first.start()
            XCTFail("started twice")
        } catch let error as StandinError {
            XCTAssertEqual(error.code, .alreadyStarted)
        }
        let second = Standin()
        do {
            try await second.start(port: port)
            await second.stop()
            XCTFail("bound a port in use")
        } catch let error as StandinError {
            XCTAssertEqual(error.code, .startFailed)
        }
        await first.stop()
    }

    func testEveryAnswerIsMarkedAsAStandin() async throws {
        let standin = Standin(configuration: StandinConfiguration(staticTokens: ["t"]))
        let port = try await standin.start()
        let client = StandinClient(port: port, token: "t")
        for path in [APIPath.syncPull, "/nowhere", "/", APIPath.syncPush] {
            let answer = try await client.get(path).response()
            XCTAssertEqual(answer.header("X-Edge-Standin"), "true", path)
            XCTAssertNotNil(answer.errorCode ?? (answer.status == 200 ? "" : nil), "\(path): \(answer.status) without an error envelope")
        }
        await standin.stop()
    }
}
