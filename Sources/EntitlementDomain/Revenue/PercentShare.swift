extension Int64 {
    /// `thousandths` thousandths of a percent of this amount (Apple's unit for a refunded share, and ours for a
    /// commission rate: 15% is 15,000), rounded toward zero; `thousandths` is 0 to 100,000. Split so the product
    /// cannot overflow.
    func share(thousandthsOfPercent thousandths: Int) -> Int64 {
        let rate = Int64(thousandths)
        return self / 100_000 * rate + self % 100_000 * rate / 100_000
    }

    /// This amount times `part / whole`, rounded toward zero and computed in 128 bits: the share of a payment's
    /// proceeds or tax that goes with part of its amount. `part` beyond `whole` counts as `whole` (a store giving back
    /// more than it charged takes back no more than all); a `whole` of 0 leaves this amount as it is.
    func proportion(_ part: Int64, of whole: Int64) -> Int64 {
        guard whole != 0 else { return self }
        let (high, low) = magnitude.multipliedFullWidth(by: Swift.min(part.magnitude, whole.magnitude))
        // At most this amount's magnitude, since the fraction is at most one.
        let (quotient, _) = whole.magnitude.dividingFullWidth((high, low))
        let negative = (self < 0) != ((part < 0) != (whole < 0))
        return negative ? Int64(truncatingIfNeeded: 0 &- quotient) : Int64(clamping: quotient)
    }
}
