import { createContext, useContext } from 'react';
import { colourTheme, type Theme } from '../theme.js';

export const ThemeContext = createContext<Theme>(colourTheme);

export function useTheme(): Theme {
  return useContext(ThemeContext);
}
