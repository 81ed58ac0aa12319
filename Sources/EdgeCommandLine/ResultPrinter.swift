import FoundationEssentials

/// Prints scan records as readable lines or JSON Lines.
public struct ResultPrinter: Sendable {
    public let json: Bool

    public init(json: Bool) { self.json = json }

    public func print(_ record: ScanRecord) {
        if json {
            Output.stdout(Output.json(record))
        } else {
            var line = "\(Output.printable(record.file)): \(record.symbology) \"\(Output.printable(record.text))\" \(record.payloadClass)"
            if let addOn = record.addOn { line += " (add-on \(addOn))" }
            if record.partialSequence == true { line += " (part of a structured-append sequence)" }
            if let gs1 = record.gs1Text { line += " \(Output.printable(gs1))" }
            if !record.valid, let reason = record.reason { line += " INVALID: \(Output.printable(reason))" }
            Output.stdout(line)
        }
    }

    public func printError(file: String, message: String) {
        if json {
            Output.stdout(Output.json(["file": file, "error": message]))
        } else {
            // Image errors name their file; a scan error (a refused pass, a time limit) does not,
            // and with several files the operator must see which one it was.
            Output.stderr("edge: \(Output.printable(message.contains(file) ? message : file + ": " + message))")
        }
    }

    /// "No code" is not an error object in JSON (the schema has one object per code); it goes to
    /// stderr in both modes, and the exit status says it too.
    public func printNoCode(file: String) {
        Output.stderr("\(Output.printable(file)): no code found")
    }
}
