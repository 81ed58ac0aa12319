import Foundation

/// The kernel's names of threads (`comm`), which `NamedThread` sets: tests check where work ran.
public enum ThreadNames {
    /// The calling thread's name.
    public static func current() -> String {
        read("/proc/thread-self/comm")
    }

    /// Every thread of this process, by name.
    public static func all() -> [String] {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
        return tasks.map { read("/proc/self/task/\($0)/comm") }
    }

    private static func read(_ path: String) -> String {
        ((try? String(contentsOfFile: path, encoding: .utf8)) ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
