/// The candidate closest to a misspelt name, when it is close enough to be a likely typo: within a third of the
/// name's length (at least 2) edits. For "did you mean" in usage and configuration errors.
public func closestMatch(to name: String, in candidates: [String]) -> String? {
    let scored = candidates.map { (candidate: $0, distance: editDistance(name, $0)) }
    guard let best = scored.min(by: { $0.distance < $1.distance }) else { return nil }
    let limit = max(2, name.count / 3)
    return best.distance <= limit ? best.candidate : nil
}

/// Levenshtein distance over characters.
public func editDistance(_ a: String, _ b: String) -> Int {
    let a = Array(a), b = Array(b)
    guard !a.isEmpty else { return b.count }
    guard !b.isEmpty else { return a.count }
    var previous = Array(0...b.count)
    var current = [Int](repeating: 0, count: b.count + 1)
    for i in 1...a.count {
        current[0] = i
        for j in 1...b.count {
            let substitution = previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)
            current[j] = min(previous[j] + 1, current[j - 1] + 1, substitution)
        }
        swap(&previous, &current)
    }
    return previous[b.count]
}
