extension Int64 {
    /// `thousandths` thousandths of a percent of this amount (Apple's unit for a refunded share, and ours for a
    /// commission rate: 15% is 15,000), rounded toward zero; `thousandths` is 0 to 100,000. Split so the product
    /// cannot overflow.
    func share(thousandthsOfPercent thousandths: Int) -> Int64 {
        let rate = Int64(thousandths)
        return self / 100_000 * rate + self % 100_000 * rate / 100_000
    }
}
