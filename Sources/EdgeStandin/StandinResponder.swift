import EdgeContract
import HTTPTypes
import Hummingbird
import NIOCore

/// The Hummingbird seam: turns a request into a StandinRequest, lets the backend answer, and
/// turns the answer back. Decision: one responder for every path instead of a Router, so unknown
/// paths and wrong methods are answered by the backend in the contract's error shape too.
struct StandinResponder: HTTPResponder {
    typealias Context = StandinRequestContext

    let backend: StandinBackend

    func respond(to request: Request, context: StandinRequestContext) async throws -> Response {
        let body: ByteBuffer
        do {
            body = try await request.body.collect(upTo: backend.configuration.maxBodyBytes)
        } catch {
            return Self.response(.error(413, .invalidRequest, "The body is larger than \(backend.configuration.maxBodyBytes) bytes"))
        }
        var headers: [String: String] = [:]
        for field in request.headers {
            let name = field.name.canonicalName
            headers[name] = headers[name].map { "\($0), \(field.value)" } ?? field.value
        }
        // HTTPTypes moves Host into the :authority pseudo-field; the FCM token endpoint checks the
        // JWT's aud against it.
        if headers["host"] == nil, let authority = request.head.authority { headers["host"] = authority }
        var query: [String: String] = [:]
        for (name, value) in request.uri.queryParameters {
            query[String(name)] = String(value)
        }
        let connection = context.connection
        let id = backend.fcm.number(of: ObjectIdentifier(connection))
        backend.fcm.streamOpened(on: id)
        defer { backend.fcm.streamClosed(on: id) }
        let reply = backend.handle(StandinRequest(
            method: request.method.rawValue, path: request.uri.path, query: query, headers: headers, body: Array(body.readableBytesView),
            connection: id))
        if let delay = reply.delay, delay > 0 { try? await Task.sleep(for: .seconds(delay)) }
        var response = Self.response(reply)
        if reply.closeConnection {
            if connection !== context.channel {
                // HTTP/2: what a server being drained does: GOAWAY, open streams finish, then the
                // connection closes (Hummingbird's connection manager acts on the quiesce event).
                connection.eventLoop.execute { connection.pipeline.fireUserInboundEventTriggered(ChannelShouldQuiesceEvent()) }
            } else {
                response.headers[.connection] = "close"
            }
        }
        return response
    }

    static func response(_ reply: StandinReply) -> Response {
        Response(status: HTTPResponse.Status(code: reply.status), headers: fields(reply.headers), body: ResponseBody(byteBuffer: ByteBuffer(bytes: reply.body)))
    }

    static func fields(_ headers: [(name: String, value: String)]) -> HTTPFields {
        var fields = HTTPFields()
        for (name, value) in headers {
            // Names are the stand-in's own constants; one that is not a valid token is dropped
            // rather than crashing a test server.
            if let fieldName = HTTPField.Name(name) {
                fields.append(HTTPField(name: fieldName, value: value))
            }
        }
        return fields
    }
}
