import CTSS

/// The bytes `TPMContext.seal` returns, version 1 (all integers big-endian):
///
///     offset  size  field
///     0       4     magic "ETPM"
///     4       1     version (1)
///     5       4     PCR mask, SHA-256 bank, bit i = PCR i, bits 24...31 zero
///     9       var   TPM2B_NAME   the storage primary's Name (Tss2_MU marshalled)
///     ...     var   TPM2B_PUBLIC  the sealed object's public area (Tss2_MU marshalled)
///     ...     var   TPM2B_PRIVATE the sealed object's private area (Tss2_MU marshalled)
///     end-4   4     CRC-32 of every preceding byte
///
/// Nothing here is secret: the private area is encrypted and HMAC'd by the TPM under the
/// primary. The primary's Name lets unseal say `wrongTPM` instead of a bare integrity failure;
/// the CRC lets it say `blobCorrupt` for accidental damage before the TPM is asked.
struct SealedBlob {
    static let magic: [UInt8] = Array("ETPM".utf8)
    static let currentVersion: UInt8 = 1
    /// magic + version + mask + three empty TPM2Bs + CRC: nothing shorter can be a blob.
    static let minimumSize = 4 + 1 + 4 + 3 * 2 + 4

    var pcrs: PCRSelection
    var primaryName: TPM2B_NAME
    var objectPublic: TPM2B_PUBLIC
    var objectPrivate: TPM2B_PRIVATE

    func encoded() throws(TPMError) -> [UInt8] {
        let tss = try TSS.library
        var bytes = Self.magic
        bytes.append(Self.currentVersion)
        bytes.append(contentsOf: Self.bigEndian(pcrs.mask))
        bytes += try Self.marshal(primaryName, "Tss2_MU_TPM2B_NAME_Marshal", tss.marshalName)
        bytes += try Self.marshal(objectPublic, "Tss2_MU_TPM2B_PUBLIC_Marshal", tss.marshalPublic)
        bytes += try Self.marshal(objectPrivate, "Tss2_MU_TPM2B_PRIVATE_Marshal", tss.marshalPrivate)
        bytes.append(contentsOf: Self.bigEndian(CRC32.checksum(bytes)))
        return bytes
    }

    /// Parses and checks a blob without touching the TPM: size, magic, version (unknown versions
    /// are refused first, since a later version may lay out or check the rest differently), CRC,
    /// PCR mask, then each marshalled structure, which must end exactly at the CRC and re-marshal
    /// to the same bytes.
    init(decoding bytes: [UInt8]) throws(TPMError) {
        guard bytes.count >= Self.minimumSize else {
            throw Self.corrupt("sealed TPM blob is truncated", ["length": "\(bytes.count)"])
        }
        guard Array(bytes[0..<4]) == Self.magic else {
            throw Self.corrupt("sealed TPM blob has no ETPM magic", [:])
        }
        guard bytes[4] == Self.currentVersion else {
            throw TPMError(.unsupportedBlobVersion, "sealed TPM blob version \(bytes[4]) is not supported",
                           context: ["version": "\(bytes[4])", "supported": "\(Self.currentVersion)"])
        }
        let body = bytes.count - 4
        guard Self.readBigEndian(bytes, at: body) == CRC32.checksum(bytes[0..<body]) else {
            throw Self.corrupt("sealed TPM blob fails its checksum", ["length": "\(bytes.count)"])
        }
        guard let pcrs = PCRSelection(mask: Self.readBigEndian(bytes, at: 5)) else {
            throw Self.corrupt("sealed TPM blob names PCRs outside 0...23", [:])
        }
        let tss = try TSS.library
        var offset = 9
        let payload = Array(bytes[0..<body])
        self.pcrs = pcrs
        primaryName = try Self.unmarshal(payload, &offset, "Tss2_MU_TPM2B_NAME_Unmarshal", tss.unmarshalName)
        objectPublic = try Self.unmarshal(payload, &offset, "Tss2_MU_TPM2B_PUBLIC_Unmarshal", tss.unmarshalPublic)
        objectPrivate = try Self.unmarshal(payload, &offset, "Tss2_MU_TPM2B_PRIVATE_Unmarshal", tss.unmarshalPrivate)
        guard offset == body else {
            throw Self.corrupt("sealed TPM blob has trailing bytes", ["trailing": "\(body - offset)"])
        }
        // Tss2_MU_TPM2B_PUBLIC_Unmarshal does not check the outer size field against the structure
        // it reads, so a blob differing in that field would open. Only the canonical encoding of
        // what was parsed is accepted, so any changed bit is an error.
        guard (try? encoded()) == bytes else {
            throw Self.corrupt("sealed TPM blob is not canonically encoded", [:])
        }
    }

    init(pcrs: PCRSelection, primaryName: TPM2B_NAME, objectPublic: TPM2B_PUBLIC, objectPrivate: TPM2B_PRIVATE) {
        self.pcrs = pcrs
        self.primaryName = primaryName
        self.objectPublic = objectPublic
        self.objectPrivate = objectPrivate
    }

    // MARK: - Tss2_MU adapters

    private typealias Marshal<Value> = (
        UnsafePointer<Value>?, UnsafeMutablePointer<UInt8>?, Int, UnsafeMutablePointer<Int>?
    ) -> TSS2_RC
    private typealias Unmarshal<Value> = (
        UnsafePointer<UInt8>?, Int, UnsafeMutablePointer<Int>?, UnsafeMutablePointer<Value>?
    ) -> TSS2_RC

    /// A marshalled TPM2B is never larger than the C structure holding it (2-byte size + buffer).
    private static func marshal<Value>(
        _ value: Value, _ function: StaticString, _ marshal: Marshal<Value>
    ) throws(TPMError) -> [UInt8] {
        var value = value
        var buffer = [UInt8](repeating: 0, count: MemoryLayout<Value>.size)
        var written = 0
        try TSS.call(function, .sealFailure, "could not marshal the sealed TPM blob") {
            buffer.withUnsafeMutableBufferPointer { out in
                marshal(&value, out.baseAddress, out.count, &written)
            }
        }
        return Array(buffer.prefix(written))
    }

    private static func unmarshal<Value>(
        _ bytes: [UInt8], _ offset: inout Int, _ function: StaticString, _ unmarshal: Unmarshal<Value>
    ) throws(TPMError) -> Value {
        let pointer = UnsafeMutablePointer<Value>.allocate(capacity: 1)
        defer { pointer.deallocate() }
        // Zero-filled, so a partial unmarshal never leaves uninitialised memory behind.
        UnsafeMutableRawPointer(pointer).initializeMemory(as: UInt8.self, repeating: 0, count: MemoryLayout<Value>.size)
        var position = offset
        try TSS.call(function, .blobCorrupt, "sealed TPM blob does not unmarshal") {
            bytes.withUnsafeBufferPointer { input in unmarshal(input.baseAddress, input.count, &position, pointer) }
        }
        offset = position
        return pointer.pointee
    }

    // MARK: - Helpers

    private static func corrupt(_ message: String, _ context: [String: String]) -> TPMError {
        TPMError(.blobCorrupt, message, context: context)
    }

    private static func bigEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(truncatingIfNeeded: value >> 24), UInt8(truncatingIfNeeded: value >> 16),
         UInt8(truncatingIfNeeded: value >> 8), UInt8(truncatingIfNeeded: value)]
    }

    private static func readBigEndian(_ bytes: [UInt8], at offset: Int) -> UInt32 {
        bytes[offset..<offset + 4].reduce(0) { $0 << 8 | UInt32($1) }
    }
}
