import Foundation

/// How the benchmark writes figures, the same way in every table.
enum BenchmarkFormat {
    static func seconds(_ value: Double) -> String {
        value < 0.1 ? String(format: "%.2f ms", value * 1_000) : String(format: "%.3f s", value)
    }

    /// Bytes in MB (10^6 bytes), or in kB below one MB.
    static func megabytes(_ bytes: Double) -> String {
        bytes < 1_000_000 ? String(format: "%.1f kB", bytes / 1_000) : String(format: "%.1f MB", bytes / 1_000_000)
    }

    static func ratio(_ value: Double) -> String { String(format: "%.2fx", value) }

    /// 1000000 as "1,000,000", independent of the locale.
    static func count(_ value: Int) -> String {
        let digits = Array(String(value))
        var out = ""
        for (index, digit) in digits.enumerated() {
            if index > 0 && (digits.count - index) % 3 == 0 { out += "," }
            out.append(digit)
        }
        return out
    }

    static func value(_ value: Double, isSize: Bool) -> String { isSize ? megabytes(value) : seconds(value) }
}
