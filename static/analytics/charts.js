// The staff analytics page's charts, drawn from the JSON the view embeds (#analytics-data).
document.addEventListener("DOMContentLoaded", () => {
  const data = JSON.parse(document.getElementById("analytics-data").textContent);
  // A chart without rows has no canvas: the page says "No data yet." in its place.
  const draw = (id, type, labels, datasets, options = {}) => {
    const canvas = document.getElementById(id);
    if (canvas) new Chart(canvas, { type, data: { labels, datasets }, options });
  };

  // Carts on the left axis; the day's conversion (checked out ÷ started, in %) on its own right axis, 0 to 100:
  // on the carts' axis a 40 % day would be a line at 40 carts.
  draw("chart-funnel", "line", data.funnel.labels, [
    { label: "started", data: data.funnel.started, yAxisID: "y" },
    { label: "with items", data: data.funnel.with_items, yAxisID: "y" },
    { label: "checked out", data: data.funnel.checked_out, yAxisID: "y" },
    { label: "conversion (%)", data: data.funnel.conversion, yAxisID: "conversion", borderDash: [6, 4] },
  ], { scales: {
    y: { title: { display: true, text: "carts" } },
    conversion: { position: "right", min: 0, max: 100, grid: { drawOnChartArea: false },
                  title: { display: true, text: "conversion (%)" } },
  } });
  draw("chart-revenue", "bar", data.revenue.labels, [
    { label: "revenue", data: data.revenue.revenue, yAxisID: "y" },
    { label: "average order", data: data.revenue.aov, type: "line", yAxisID: "aov" },
  ], { scales: { aov: { position: "right", grid: { drawOnChartArea: false } } } });
  draw("chart-checkout-time", "bar", data.checkout_time.labels, [
    { label: "carts", data: data.checkout_time.carts },
  ]);
  draw("chart-sessions", "bar", data.sessions.labels, [
    { label: "sessions", data: data.sessions.sessions },
    { label: "with a checkout", data: data.sessions.with_checkout },
  ]);
  draw("chart-hourly", "line", data.hourly.labels, [
    { label: "cart events", data: data.hourly.events, pointRadius: 0 },
    { label: "checkouts", data: data.hourly.checkouts, pointRadius: 0 },
  ], { aspectRatio: 4 });
});
