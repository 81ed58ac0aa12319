/// A configuration file that cannot be used: code, one-line message naming the file, and the path.
struct ConfigError: Error, CustomStringConvertible {
    enum Code: String { case unreadable, tooLarge = "too-large", invalid }
    let code: Code
    let message: String
    let path: String
    var description: String { message }
}
