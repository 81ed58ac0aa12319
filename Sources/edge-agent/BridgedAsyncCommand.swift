import ArgumentParser

/// A subcommand whose work is async (`edge sync run`, `edge push send|run`), run from the
/// synchronous root through `AsyncBridge` (see there why the root is not async).
protocol BridgedAsyncCommand: ParsableCommand, Sendable {
    func runAsync() async throws
}

extension BridgedAsyncCommand {
    func run() throws {
        let command = self
        try AsyncBridge.wait { try await command.runAsync() }
    }
}
