// Export the current frame of the figure as a standalone SVG or PNG: the
// page's CSS (variables, classes) is resolved into inline styles on a copy.
// A big graph zoomed out is drawn on the overview canvas over the SVG (the
// SVG then holds only the module frames): the export adds that canvas as an
// image on top, so the file shows what the reader sees.
const PROPS = ['fill', 'stroke', 'stroke-width', 'stroke-dasharray', 'opacity', 'font-family', 'font-size', 'font-weight', 'font-style', 'display'];

export function frameSvg(svg, view) {
  const { width, height } = view.size();
  const copy = svg.cloneNode(true);
  const src = svg.querySelectorAll('*'); const dst = copy.querySelectorAll('*');
  src.forEach((e, i) => {
    const cs = getComputedStyle(e);
    dst[i].setAttribute('style', PROPS.map((p) => `${p}:${cs.getPropertyValue(p)}`).join(';') + (e.style.transform ? `;transform:${e.style.transform};transform-origin:0 0` : ''));
  });
  copy.setAttribute('xmlns', 'http://www.w3.org/2000/svg');
  copy.setAttribute('width', String(width)); copy.setAttribute('height', String(height));
  copy.setAttribute('viewBox', `0 0 ${width} ${height}`);
  copy.style.background = getComputedStyle(document.querySelector('.pane') || document.body).backgroundColor;
  copy.querySelector('.viewport')?.setAttribute('transform', `translate(${view.view.x} ${view.view.y}) scale(${view.view.k})`);
  copy.querySelector('.viewport')?.style.removeProperty('transform');
  const overview = view.overview?.canvas;
  if (overview && !overview.hidden && overview.width > 1) {
    const img = document.createElementNS('http://www.w3.org/2000/svg', 'image');
    for (const [k, v] of [['x', 0], ['y', 0], ['width', width], ['height', height], ['href', overview.toDataURL('image/png')]]) img.setAttribute(k, String(v));
    copy.append(img);
  }
  return new XMLSerializer().serializeToString(copy);
}

function download(blob, name) {
  const a = document.createElement('a'); a.href = URL.createObjectURL(blob); a.download = name;
  document.body.append(a); a.click(); a.remove(); setTimeout(() => URL.revokeObjectURL(a.href), 1000);
}

export function downloadSvg(svg, view, name = 'hookgrad-figure.svg') {
  download(new Blob([frameSvg(svg, view)], { type: 'image/svg+xml' }), name);
}

export async function downloadPng(svg, view, name = 'hookgrad-figure.png', scale = 2) {
  const text = frameSvg(svg, view); const { width, height } = view.size();
  const img = new Image();
  img.src = URL.createObjectURL(new Blob([text], { type: 'image/svg+xml' }));
  await img.decode();
  const c = document.createElement('canvas'); c.width = Math.round(width * scale); c.height = Math.round(height * scale);
  const ctx = c.getContext('2d'); ctx.fillStyle = getComputedStyle(document.querySelector('.pane') || document.body).backgroundColor; ctx.fillRect(0, 0, c.width, c.height);
  ctx.drawImage(img, 0, 0, c.width, c.height);
  URL.revokeObjectURL(img.src);
  const blob = await new Promise((r) => c.toBlob(r, 'image/png'));
  download(blob, name);
}
