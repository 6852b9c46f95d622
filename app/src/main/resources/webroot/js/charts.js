// Small charts drawn as inline SVG (no library, nothing from a CDN): per-minute bars, stacked, and a
// per-minute line. Each chart is an <svg role="img"> with a <title> and a <desc> that says in words
// what it shows; every drawn point has its own <title> (its minute and figures) and data attributes.
// A minute without a sample (null figures) is drawn as a gap: a short grey mark on the base line
// for bars, a break in the line.

const NS = 'http://www.w3.org/2000/svg';
const HEIGHT = 220;
const MARGIN = { top: 12, right: 12, bottom: 40, left: 46 };
const PLOT_H = HEIGHT - MARGIN.top - MARGIN.bottom;

/**
 * The drawing's width: the room it has (so its text keeps its size on a phone), between 300 and
 * 640 units. The caller draws again when the room changes.
 */
export function chartWidth(container) {
  return Math.round(Math.min(640, Math.max(300, container.clientWidth || 640)));
}

/** Makes an SVG element: attrs are set as attributes (null and undefined left out). */
function s(tag, attrs, ...children) {
  const el = document.createElementNS(NS, tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value !== null && value !== undefined) {
      el.setAttribute(key, String(value));
    }
  }
  for (const child of children.flat()) {
    if (child !== null && child !== undefined && child !== false) {
      el.appendChild(child instanceof Node ? child : document.createTextNode(String(child)));
    }
  }
  return el;
}

/** The minute as the axis and the titles show it, in the reader's time zone (e.g. "14:07"). */
export function clock(iso) {
  return new Date(iso).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });
}

/** The top of the scale: the largest value rounded up to a step that divides into 4 whole ticks. */
function scaleTop(max) {
  if (max <= 4) {
    return 4;
  }
  const step = 10 ** Math.floor(Math.log10(max / 4));
  for (const m of [1, 2, 2.5, 5, 10]) {
    if (max <= 4 * m * step && Number.isInteger(m * step)) {
      return 4 * m * step;
    }
  }
  return Math.ceil(max / 4) * 4;
}

/** The frame every chart shares: grid, y ticks, y title, x labels (first, middle, last minute). */
function frame(id, title, description, yTitle, top, minutes, width) {
  const plotW = width - MARGIN.left - MARGIN.right;
  const svg = s('svg', {
    viewBox: `0 0 ${width} ${HEIGHT}`, role: 'img', 'aria-labelledby': `${id}-t ${id}-d`, class: 'minute-chart',
    preserveAspectRatio: 'xMidYMid meet',
  },
  s('title', { id: `${id}-t` }, title),
  s('desc', { id: `${id}-d` }, description));
  const axis = s('g', { class: 'axis', 'aria-hidden': 'true' });
  for (let i = 0; i <= 4; i += 1) {
    const value = (top / 4) * i;
    const y = MARGIN.top + PLOT_H - (PLOT_H * i) / 4;
    axis.append(s('line', { class: i === 0 ? 'base' : 'grid', x1: MARGIN.left, x2: width - MARGIN.right, y1: y, y2: y }),
      s('text', { x: MARGIN.left - 6, y: y + 4, 'text-anchor': 'end' }, String(value)));
  }
  axis.append(s('text', {
    class: 'axis-title', x: 12, y: MARGIN.top + PLOT_H / 2, 'text-anchor': 'middle',
    transform: `rotate(-90 12 ${MARGIN.top + PLOT_H / 2})`,
  }, yTitle));
  const slot = plotW / minutes.length;
  for (const i of [0, Math.floor(minutes.length / 2), minutes.length - 1]) {
    if (minutes[i]) {
      const x = MARGIN.left + slot * (i + 0.5);
      axis.append(s('text', { x, y: HEIGHT - MARGIN.bottom + 16, 'text-anchor': i === 0 ? 'start' : i === minutes.length - 1 ? 'end' : 'middle' },
        minutes[i].current ? `${clock(minutes[i].minute)} (now)` : clock(minutes[i].minute)));
    }
  }
  axis.append(s('text', { class: 'axis-title', x: MARGIN.left + plotW / 2, y: HEIGHT - 4, 'text-anchor': 'middle' },
    'Minute (local time)'));
  svg.append(axis);
  return { svg, slot };
}

const y = (value, top) => MARGIN.top + PLOT_H - (PLOT_H * value) / top;

/**
 * Stacked bars, one per minute. series: [{key, label, cls}] drawn bottom up; minutes: the
 * pipelineMinutes entries. Answers the <svg>; its data-points counts the bars drawn.
 */
export function stackedBars({ id, title, description, yTitle, minutes, series, width = 640 }) {
  const totals = minutes.map((m) => series.reduce((sum, se) => sum + (m[se.key] || 0), 0));
  const top = scaleTop(Math.max(0, ...totals));
  const { svg, slot } = frame(id, title, description, yTitle, top, minutes, width);
  const bars = s('g', { class: 'bars' });
  let drawn = 0;
  minutes.forEach((m, i) => {
    const x = MARGIN.left + slot * i + slot * 0.15;
    const width = slot * 0.7;
    if (!m.sampled) {
      bars.append(s('rect', { class: 'gap', x, y: MARGIN.top + PLOT_H - 3, width, height: 3, 'data-minute': m.minute },
        s('title', null, `${clock(m.minute)}: no sample`)));
      return;
    }
    let base = 0;
    for (const se of series) {
      const value = m[se.key] || 0;
      if (value > 0) {
        bars.append(s('rect', {
          class: `bar ${se.cls}`, x, y: y(base + value, top), width, height: y(base, top) - y(base + value, top),
          'data-minute': m.minute, [`data-${se.key}`]: value,
        }, s('title', null, `${clock(m.minute)}: ${value} ${se.label}`)));
        drawn += 1;
      }
      base += value;
    }
  });
  svg.append(bars);
  svg.setAttribute('data-points', String(drawn));
  return svg;
}

/**
 * A line with a dot per sampled minute, broken where a minute has no sample. key: the figure drawn.
 * Answers the <svg>; its data-points counts the dots.
 */
export function line({ id, title, description, yTitle, minutes, key, label, cls, width = 640 }) {
  const top = scaleTop(Math.max(0, ...minutes.map((m) => m[key] || 0)));
  const { svg, slot } = frame(id, title, description, yTitle, top, minutes, width);
  let d = '';
  let pen = false;
  const dots = s('g', { class: `dots ${cls}` });
  minutes.forEach((m, i) => {
    const value = m[key];
    if (!m.sampled || value === null || value === undefined) {
      pen = false;
      return;
    }
    const x = MARGIN.left + slot * (i + 0.5);
    d += `${pen ? 'L' : 'M'}${x.toFixed(1)} ${y(value, top).toFixed(1)} `;
    pen = true;
    dots.append(s('circle', { class: 'point', cx: x.toFixed(1), cy: y(value, top).toFixed(1), r: 3, 'data-minute': m.minute,
      [`data-${key}`]: value }, s('title', null, `${clock(m.minute)}: ${value} ${label}`)));
  });
  svg.append(s('path', { class: `line ${cls}`, d: d.trim(), fill: 'none' }), dots);
  svg.setAttribute('data-points', String(dots.childNodes.length));
  return svg;
}
