/// The string two aggregators sign (Shanyan's HMAC-SHA256 `sign`, Yidun's MD5 `signature`): every parameter's name
/// followed by its value, names in ascending byte order, no separators.
package enum SortedParameters {
    /// The concatenation: `appId…encryptType…token…`.
    /// - Parameter fields: The parameters signed (the signature's own field excluded).
    /// - Returns: The concatenation.
    package static func concatenated(_ fields: [(name: String, value: String)]) -> String {
        fields.sorted { Array($0.name.utf8).lexicographicallyPrecedes(Array($1.name.utf8)) }.map { $0.name + $0.value }.joined()
    }
}
