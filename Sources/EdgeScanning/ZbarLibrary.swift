import CZbar
import EdgeCore

/// libzbar, loaded with `dlopen` when the first scanner is made, and the functions edge calls,
/// resolved with `dlsym` (the same seam as libcurl's, `SharedLibrary`).
///
/// Decision (issue #32 item 3): not linked. Debian builds libzbar with its video, X11 window and
/// D-Bus parts, so loading it brings 19 libraries (dbus, systemd, gcrypt, lzma, zstd, X11, xcb,
/// ...): 2.35 M instructions and some 250 page faults at the start of every process that links it,
/// about 2 ms. The `edge` front paid that before it could exec edge-agent for any command but a
/// still-image scan, and edge-agent paid it for `edge status`, `edge vault`, `edge sync` ...; now
/// only a process that scans does, when it first scans.
struct ZbarLibrary: @unchecked Sendable {
    // @unchecked: function pointers into a library that is never unloaded.
    static let soname = "libzbar.so.0"

    let imageScannerCreate: @convention(c) () -> OpaquePointer?
    let imageScannerDestroy: @convention(c) (OpaquePointer?) -> Void
    let imageScannerSetConfig: @convention(c) (OpaquePointer?, zbar_symbol_type_t, zbar_config_t, Int32) -> Int32
    let imageCreate: @convention(c) () -> OpaquePointer?
    let imageDestroy: @convention(c) (OpaquePointer?) -> Void
    let imageSetFormat: @convention(c) (OpaquePointer?, UInt) -> Void
    let imageSetSize: @convention(c) (OpaquePointer?, UInt32, UInt32) -> Void
    let imageSetData: @convention(c) (OpaquePointer?, UnsafeRawPointer?, UInt, (@convention(c) (OpaquePointer?) -> Void)?) -> Void
    let scanImage: @convention(c) (OpaquePointer?, OpaquePointer?) -> Int32
    let imageFirstSymbol: @convention(c) (OpaquePointer?) -> OpaquePointer?
    let symbolNext: @convention(c) (OpaquePointer?) -> OpaquePointer?
    let symbolFirstComponent: @convention(c) (OpaquePointer?) -> OpaquePointer?
    let symbolGetType: @convention(c) (OpaquePointer?) -> zbar_symbol_type_t
    let symbolGetData: @convention(c) (OpaquePointer?) -> UnsafePointer<CChar>?
    let symbolGetDataLength: @convention(c) (OpaquePointer?) -> UInt32
    let symbolGetLocSize: @convention(c) (OpaquePointer?) -> UInt32
    let symbolGetLocX: @convention(c) (OpaquePointer?, UInt32) -> Int32
    let symbolGetLocY: @convention(c) (OpaquePointer?, UInt32) -> Int32
    let symbolGetModifiers: @convention(c) (OpaquePointer?) -> UInt32
    let symbolGetOrientation: @convention(c) (OpaquePointer?) -> zbar_orientation_t
    let symbolGetQuality: @convention(c) (OpaquePointer?) -> Int32

    /// The process's one copy, or why it could not be loaded.
    static let shared = Result { () throws(ScanError) in
        try ZbarLibrary(try SharedLibrary(soname, role: "barcode library", package: "libzbar0", code: .zbarFailure))
    }

    private init(_ library: SharedLibrary<ScanErrorCode>) throws(ScanError) {
        func resolve<F>(_ name: String) throws(ScanError) -> F { try library.function(name) }
        imageScannerCreate = try resolve("zbar_image_scanner_create")
        imageScannerDestroy = try resolve("zbar_image_scanner_destroy")
        imageScannerSetConfig = try resolve("zbar_image_scanner_set_config")
        imageCreate = try resolve("zbar_image_create")
        imageDestroy = try resolve("zbar_image_destroy")
        imageSetFormat = try resolve("zbar_image_set_format")
        imageSetSize = try resolve("zbar_image_set_size")
        imageSetData = try resolve("zbar_image_set_data")
        scanImage = try resolve("zbar_scan_image")
        imageFirstSymbol = try resolve("zbar_image_first_symbol")
        symbolNext = try resolve("zbar_symbol_next")
        symbolFirstComponent = try resolve("zbar_symbol_first_component")
        symbolGetType = try resolve("zbar_symbol_get_type")
        symbolGetData = try resolve("zbar_symbol_get_data")
        symbolGetDataLength = try resolve("zbar_symbol_get_data_length")
        symbolGetLocSize = try resolve("zbar_symbol_get_loc_size")
        symbolGetLocX = try resolve("zbar_symbol_get_loc_x")
        symbolGetLocY = try resolve("zbar_symbol_get_loc_y")
        symbolGetModifiers = try resolve("zbar_symbol_get_modifiers")
        symbolGetOrientation = try resolve("zbar_symbol_get_orientation")
        symbolGetQuality = try resolve("zbar_symbol_get_quality")
    }
}
