import ArgumentParser
import EdgeCommandLine
import EdgeImaging
import EdgeReceiving
import EdgeScanning

/// `edge lookup vendor|material|product`: the dock's cards (RCV-4..6).
struct LookupCommand: BridgedAsyncCommand {
    enum Kind: String, ExpressibleByArgument, CaseIterable {
        case vendor, material, product

        /// The symbologies a code of this kind is printed in.
        var formats: Set<BarcodeFormat> {
            switch self {
            case .vendor: [.qr]
            case .material: [.code128, .code39]
            // GS1-128 and GS1 QR labels name their product by GTIN (SCN-13); only GS1-marked
            // Code 128 and QR reads count (`isCode`).
            case .product: [.ean13, .code128, .qr]
            }
        }
    }

    static let configuration = CommandConfiguration(
        commandName: "lookup",
        abstract: "Show a vendor card (QR), a material (MAT-...) or a product (EAN-13, GS1-128 or GS1 QR) from the backend.",
        discussion: """
        VALUE is the code's text (a vendor card's whole JSON, a MAT- code, 13 digits or GS1 data
        such as (01)09506000134352(17)201225(10)ABC123), or --image reads it from a photo of the
        label. A vendor card of another tenant than the station's (receiving.tenant_id in
        edge.json) is refused before anything is sent; an EAN-13 with a wrong check digit, and
        GS1 data that is invalid or names no GTIN, too.

        With --json, one object valid against models/lookup.schema.json.

        Exit status:
          0   found
          2   configuration, vault or database could not be used
          3   the backend knows nothing under this value ("no product data" for a product)
          4   refused before sending: not a code of this kind, wrong check digit, another tenant
          5   the backend cannot be reached
        """
    )

    @Argument(help: "vendor, material or product.")
    var kind: Kind

    @Argument(help: ArgumentHelp("The code's text.", valueName: "VALUE"))
    var value: String?

    @Option(name: .customLong("image"), help: ArgumentHelp("Read the code from this image instead.", valueName: "FILE"))
    var image: String?

    @Flag(name: .customLong("json")) var json = false

    @OptionGroup var options: SyncOptions
    @OptionGroup var vault: VaultCommand.Location

    func validate() throws {
        if (value == nil) == (image == nil) { throw ValidationError("give VALUE or --image FILE (one of them)") }
    }

    func runAsync() async throws {
        let text = try value ?? readCode(image ?? "")
        let session = try ReceivingSession.open(options: options, vault: vault)
        defer { session.close() }
        let dock = session.parts.dock
        let document: LookupDocument
        do throws(ReceivingError) {
            switch kind {
            case .vendor: document = LookupDocument(vendor: try await dock.vendor(cardText: text))
            case .material: document = LookupDocument(material: try await dock.material(text))
            case .product: document = LookupDocument(product: try await dock.product(text))
            }
        } catch {
            Output.stderr("edge: " + Output.printable(error.message))
            throw ExitCode(ReceivingSession.exitStatus(error.code, fallback: 5, offline: 5))
        }
        if json {
            Output.stdout(Output.json(document))
        } else {
            for line in document.text { Output.stdout(Output.printable(line)) }
        }
        if !document.found { throw ExitCode(3) }
    }

    /// A read that is a code of this kind: for products an EAN-13 or a GS1-marked symbol.
    private func isCode(_ result: ScanResult) -> Bool {
        kind.formats.contains(result.format) && (kind != .product || result.format == .ean13 || result.gs1)
    }

    /// The first code of this kind in the image; none is exit status 4.
    private func readCode(_ path: String) throws -> String {
        do {
            let picture = try ImageLoader.load(path: path)
            let results = try BarcodeReader(options: ReaderOptions(formats: kind.formats)).read(picture)
            guard let first = results.first(where: isCode) else {
                Output.stderr("edge: no \(kind.rawValue) code found in \(Output.printable(path))")
                throw ExitCode(4)
            }
            return first.text
        } catch let error as ImageError {
            Output.stderr("edge: " + error.message)
            throw ExitCode(4)
        } catch let error as ScanError {
            Output.stderr("edge: " + error.message)
            throw ExitCode(4)
        }
    }
}
