import ArgumentParser
import EdgeCommandLine
import EdgeVault

/// `edge device-id`: this station's UUID (ENR-15), created on first use and kept in the vault.
struct DeviceIDCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "device-id", abstract: "Print this station's device UUID (created on first use).")
    @OptionGroup var location: VaultCommand.Location

    func run() throws {
        let vault = try location.open()
        Output.stdout(try VaultCommand.run { () throws(VaultError) in try vault.deviceID() })
    }
}
