import FoundationEssentials

/// Loads PNG, JPEG and PNM images as 8-bit luminance (SCN-1), refusing bad input with an
/// `ImageError` rather than crashing or exhausting memory (SCN-10).
///
/// The format comes from the magic bytes, never from the file name. Every decoder checks the
/// header's pixel count against `ImageLimits.maxPixels` before allocating pixels. All entry
/// points are thread-safe: each call owns its decoder state.
public enum ImageLoader {
    /// Reads and decodes the file at `path` (at most `limits.maxFileBytes`).
    public static func load(path: String, limits: ImageLimits = .init()) throws(ImageError) -> GrayImage {
        let bytes = try ImageFile.readAll(path: path, maxBytes: limits.maxFileBytes)
        return try load(data: bytes, name: path, limits: limits)
    }

    /// Decodes an in-memory file; `name` stands in for the path in errors.
    public static func load(data: [UInt8], name: String, limits: ImageLimits = .init()) throws(ImageError) -> GrayImage {
        // withUnsafeBytes rethrows untyped errors, so the typed result travels out as a Result.
        let result = data.withUnsafeBytes { raw in
            Result { () throws(ImageError) -> GrayImage in try decode(raw, name: name, limits: limits) }
        }
        return try result.get()
    }

    /// Decodes an in-memory file; `name` stands in for the path in errors.
    public static func load(data: Data, name: String, limits: ImageLimits = .init()) throws(ImageError) -> GrayImage {
        let result = data.withUnsafeBytes { raw in
            Result { () throws(ImageError) -> GrayImage in try decode(raw, name: name, limits: limits) }
        }
        return try result.get()
    }

    /// Decodes bytes that stay valid for the duration of the call.
    public static func load(bytes: UnsafeRawBufferPointer, name: String, limits: ImageLimits = .init()) throws(ImageError) -> GrayImage {
        try decode(bytes, name: name, limits: limits)
    }

    static func decode(_ bytes: UnsafeRawBufferPointer, name: String, limits: ImageLimits) throws(ImageError) -> GrayImage {
        guard !bytes.isEmpty else {
            throw ImageError(.empty, path: name, reason: "empty file (0 bytes)")
        }
        switch ImageFormat.detect(bytes.prefix(8)) {
        case .png: return try PNGDecoder.decode(bytes, path: name, limits: limits)
        case .jpeg: return try JPEGDecoder.decode(bytes, path: name, limits: limits)
        case .pnm: return try PNMDecoder.decode(bytes, path: name, limits: limits)
        case nil:
            if let cut = ImageFormat.cutSignature(bytes.prefix(9)) {
                throw ImageError(.truncated, path: name, reason: "truncated \(cut.displayName): the data ends inside the file signature")
            }
            if let other = ImageFormat.otherFormatName(bytes.prefix(12)) {
                throw ImageError(.unsupportedFormat, path: name, reason: "\(other) images are not supported (only PNG, JPEG and PNM)")
            }
            throw ImageError(.unsupportedFormat, path: name, reason: "not a PNG/JPEG/PNM image")
        }
    }
}
